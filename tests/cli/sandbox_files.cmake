# sandbox_files.cmake - what a sandboxed script can write and read
# (issue 13, classes 1 and 2). Builds a small world in OUT:
#
#   OUT/world/secret.txt        a file the script must not read or change
#   OUT/world/script/attack.lua the student's script (tests/cli/sandbox_files.lua)
#   OUT/world/script/evil.s     -> ../secret.txt   (symlink out of the script folder)
#   OUT/world/script/evilmod.lua-> ../secret.txt
#   OUT/world/script/fifo.s     a FIFO (reading it would block)
#   OUT/world/script/simtlab-out-> ..  (a planted symlink as the default output folder)
#   OUT/world/out/              the output folder named with --out (and out/sub)
#   OUT/world/out/link.csv      -> ../secret.txt
#   OUT/world/out/up            -> ..
#
# runs the script twice (with --out and without, where the default output
# folder is the planted symlink), and then checks that the only new files
# are inside OUT/world/out and that secret.txt is unchanged.
#
#   cmake -DSIMTLAB=path -DSRC=tests/cli -P sandbox_files.cmake
#
# OUT is a fresh folder under /tmp: outside the project, whose own files
# a script may read.
cmake_policy(SET CMP0009 NEW)   # GLOB_RECURSE does not follow symlinks
string(RANDOM LENGTH 10 tag)
set(OUT /tmp/simtlab-sandbox-files-${tag})
set(w ${OUT}/world)
file(REMOVE_RECURSE ${w})
file(MAKE_DIRECTORY ${w}/script ${w}/out/sub)
file(WRITE ${w}/secret.txt "SECRET-CONTENT first line\n")
configure_file(${SRC}/sandbox_files.lua ${w}/script/attack.lua COPYONLY)
file(CREATE_LINK ../secret.txt ${w}/script/evil.s SYMBOLIC)
file(CREATE_LINK ../secret.txt ${w}/script/evilmod.lua SYMBOLIC)
file(CREATE_LINK .. ${w}/script/simtlab-out SYMBOLIC)
file(CREATE_LINK ../secret.txt ${w}/out/link.csv SYMBOLIC)
file(CREATE_LINK .. ${w}/out/up SYMBOLIC)
execute_process(COMMAND mkfifo ${w}/script/fifo.s RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mkfifo failed")
endif()
file(GLOB_RECURSE before LIST_DIRECTORIES true ${w}/*)

function(run_attack mode)
  execute_process(COMMAND ${SIMTLAB} run ${ARGN} ${w}/script/attack.lua ${w} ${mode}
                  WORKING_DIRECTORY ${w} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 60)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "attacks refused: ${mode}\n$")
    message(FATAL_ERROR "attack script (${mode}) failed (${rc}):\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  string(FIND "${out}${err}" "SECRET-CONTENT" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the secret's content was printed:\n${out}\n${err}")
  endif()
endfunction()
run_attack(named --out ${w}/out)
run_attack(default)

file(GLOB_RECURSE after LIST_DIRECTORIES true ${w}/*)
set(expected ${before} ${w}/out/ok.csv ${w}/out/ok.json ${w}/out/sub/deep.csv)
list(SORT expected)
list(REMOVE_DUPLICATES expected)
list(SORT after)
if(NOT after STREQUAL expected)
  message(FATAL_ERROR "files outside the output folder changed:\nexpected:\n${expected}\ngot:\n${after}")
endif()
file(READ ${w}/secret.txt s)
if(NOT s STREQUAL "SECRET-CONTENT first line\n")
  message(FATAL_ERROR "secret.txt was changed: ${s}")
endif()
file(READ ${w}/out/ok.csv csv)
if(NOT csv STREQUAL "a,b\n\"'=HYPERLINK(1)\",\"'+1\"\n\"'-cmd\",\"'@x\"\n")
  message(FATAL_ERROR "CSV formula cells are not quoted as text:\n${csv}")
endif()
file(REMOVE_RECURSE ${OUT})
