# check_exit.cmake - run a command, check its exit code and what it printed.
#
#   cmake -DCMD="prog|arg1|arg2" -DRC=1 [-DSTDOUT=regex] [-DSTDERR=regex]
#         [-DOUTPUT_FILE=path] -P check_exit.cmake
#
# OUTPUT_FILE sends stdout to a file (e.g. /dev/full) instead.
#
# CMD separates arguments with '|' (a ';' would split the -D argument).
string(REPLACE "|" ";" cmd "${CMD}")
if(DEFINED OUTPUT_FILE)
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_FILE ${OUTPUT_FILE} ERROR_VARIABLE err)
  set(out "")
else()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
set(report "command: ${cmd}\nexit code: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
if(NOT "${rc}" STREQUAL "${RC}")
  message(FATAL_ERROR "expected exit code ${RC}\n${report}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "stdout does not match '${STDOUT}'\n${report}")
endif()
if(DEFINED STDERR AND NOT err MATCHES "${STDERR}")
  message(FATAL_ERROR "stderr does not match '${STDERR}'\n${report}")
endif()
