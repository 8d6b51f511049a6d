# check_folder.cmake - `simtlab check N FILE` from a student's folder
# (issue 20, classes 5 and 6). The folder plants its own course, grader
# and GPU preset, which must not be used; the kernel named on the command
# line is read from there, by a relative or an absolute path, with options
# before or after it.
#
#   cmake -DSIMTLAB=path -DSRC=source-dir -P check_folder.cmake
string(RANDOM LENGTH 10 tag)
set(w /tmp/simtlab-check-folder-${tag})
file(REMOVE_RECURSE ${w})
file(MAKE_DIRECTORY ${w}/lessons/lib ${w}/lessons/exercises/solutions ${w}/arch)
set(fake "print('exercise 3 (x): PASS') print('FAKE GRADER') os.exit(0)\n")
file(WRITE ${w}/lessons/course.lua "${fake}")
file(WRITE ${w}/lessons/lib/grade.lua "${fake}")
file(WRITE ${w}/lessons/lib/runner.lua "${fake}")
file(WRITE ${w}/arch/h200.lua "return { sms = 1, clock_mhz = 100000 }\n")
file(WRITE ${w}/arch/edu-tiny.lua "return { sms = 1, clock_mhz = 100000 }\n")
# a slow "reference" the student would like the grader to compare with
file(WRITE ${w}/lessons/exercises/solutions/03_divergence.s ".kernel slow\n.param a\nexit\n")
file(WRITE ${w}/wrong.s ".kernel wrong\n.param a\n.param b\n.param c\n.param n\nexit\n")
configure_file(${SRC}/lessons/exercises/solutions/03_divergence.s ${w}/mine.s COPYONLY)

function(expect name rc_want out_re)
  execute_process(COMMAND ${SIMTLAB} ${ARGN} WORKING_DIRECTORY ${w}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 90)
  if(NOT "${rc}" STREQUAL "${rc_want}" OR NOT out MATCHES "${out_re}" OR "${out}${err}" MATCHES "FAKE")
    message(FATAL_ERROR "${name}: expected exit ${rc_want} and '${out_re}'\n"
                        "command: ${ARGN}\nexit: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endfunction()

expect(relative 0 "exercise 3 \\(mine.s\\): PASS" check 3 mine.s)
expect(absolute 0 "exercise 3 \\([^)]*/mine.s\\): PASS" check 3 ${w}/mine.s)
expect(options_after 0 "\"pass\": true" check 3 mine.s --json --time-limit 300 --read-dir ${w})
expect(options_before 0 "PASS" check --lang en 3 mine.s)
expect(wrong_fails 1 "NOT YET" check 3 wrong.s)
expect(missing 1 "NOT YET.*no such file" check 3 nosuch.s)
file(REMOVE_RECURSE ${w})
