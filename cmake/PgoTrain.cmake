# The training step of EMX_PGO (cmake/Pgo.cmake), run by the build in script mode:
# configures and builds an instrumented emx in PGO_DIR/gen (the same sources, GCC's
# -fprofile-generate), runs the training mix (cmake/pgo_train.sh) on the build's programs,
# and leaves the profile in PGO_DIR/data for the optimised emx. Any failure leaves no
# profile and says so: emx is then built as without EMX_PGO (the build goes on).
#   cmake -DSOURCE_DIR= -DPGO_DIR= -DPROGRAMS= -DGENERATOR= -DCXX= -DHOST_FMA= -DPYTHON=
#         -P cmake/PgoTrain.cmake
set(gen "${PGO_DIR}/gen")
set(data "${PGO_DIR}/data")
set(status_file "${PGO_DIR}/status")
file(REMOVE_RECURSE "${data}")
file(MAKE_DIRECTORY "${data}")

function(give_up what output)
  file(REMOVE_RECURSE "${data}")
  file(MAKE_DIRECTORY "${data}")
  string(LENGTH "${output}" n)
  if(n GREATER 3000)  # the end says what went wrong
    math(EXPR from "${n} - 3000")
    string(SUBSTRING "${output}" ${from} -1 output)
  endif()
  file(WRITE "${status_file}" "untrained: ${what} failed\n")
  message(WARNING "EMX_PGO: ${what} failed, so emx is built without a profile (as with "
                  "-DEMX_PGO=OFF). Its output:\n${output}")
endfunction()

string(TIMESTAMP t0 "%s")
# The generate flags: counters updated atomically (emx serve forks its runs), the profile
# named by object path relative to gen/ (so that the optimised build in the parent finds
# it under the same names), and __gcov_dump linked in (emx leaves by _Exit, which skips
# the profile's writing at exit: sim/cli/main.cpp calls it through a weak reference).
set(generate "-fprofile-generate=${data} -fprofile-update=prefer-atomic -fprofile-prefix-path=${gen}")
set(extra)
if(PYTHON)
  list(APPEND extra "-DPython3_EXECUTABLE=${PYTHON}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${gen}" -G "${GENERATOR}"
          -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX} -DEMX_PGO=OFF
          -DEMX_HOST_FMA=${HOST_FMA} ${extra}
          "-DCMAKE_CXX_FLAGS=${generate}"
          "-DCMAKE_EXE_LINKER_FLAGS=${generate} -Wl,--undefined=__gcov_dump"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  give_up("configuring the instrumented build (${gen})" "${out}")
  return()
endif()
message(STATUS "EMX_PGO: building the instrumented emx in ${gen}")
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${gen}" --target emx
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  give_up("building the instrumented emx" "${out}")
  return()
endif()
string(TIMESTAMP t1 "%s")
message(STATUS "EMX_PGO: training it (cmake/pgo_train.sh)")
execute_process(COMMAND sh "${SOURCE_DIR}/cmake/pgo_train.sh" "${gen}/sim/emx" "${PROGRAMS}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  give_up("the training run (cmake/pgo_train.sh)" "${out}")
  return()
endif()
file(GLOB profiles "${data}/*.gcda")
list(LENGTH profiles n)
if(n EQUAL 0)
  give_up("the training run (it wrote no profile)" "${out}")
  return()
endif()
string(TIMESTAMP t2 "%s")
math(EXPR build_s "${t1} - ${t0}")
math(EXPR train_s "${t2} - ${t1}")
file(WRITE "${status_file}" "trained: ${n} profiles\n")
message(STATUS "EMX_PGO: ${n} profiles (instrumented build ${build_s} s, training ${train_s} s)")
