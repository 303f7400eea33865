# EMX_PGO: emx built with GCC's profile-guided optimisation (docs/performance.md,
# "Profile-guided build"). The simulator's hot loops (the network engine, the PE, the ISS)
# are bound by branch mispredictions and code layout, which a profile of real runs
# improves; simulated figures do not change (only the host code's layout and inlining).
# The build first makes an instrumented emx in build/pgo/gen and runs a training mix on
# the build's programs (cmake/PgoTrain.cmake, cmake/pgo_train.sh), then compiles the
# simulator's libraries and emx with that profile. Training failing leaves a plain emx.
# The profile is made once per build directory: later source changes rebuild as usual
# against it (a changed function without a matching profile is compiled as without
# one). `rm -rf build/pgo` trains afresh at the next build; -DEMX_PGO=OFF turns it off.
option(EMX_PGO "build emx with a profile of a training mix (GCC, Release builds)" ON)
set(emx_pgo_targets emx_isa emx_network emx_iss emx_sim emx)
if(EMX_PGO AND NOT (CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_BUILD_TYPE STREQUAL "Release"))
  message(STATUS "EMX_PGO: off (it needs GCC and a Release build)")
  return()
endif()
if(NOT EMX_PGO)
  return()
endif()

set(EMX_PGO_DIR "${CMAKE_BINARY_DIR}/pgo")
set(stamp "${EMX_PGO_DIR}/status")
# The programs of the training mix: built before it (target order only, so that a
# program rebuilt later does not retrain).
set(training_programs bench_stream radix_fine radix_coarse bench_mpi_ring mpi_pingpong
    bench_compute hello demo)
add_custom_command(
  OUTPUT "${stamp}"
  COMMAND "${CMAKE_COMMAND}" "-DSOURCE_DIR=${CMAKE_SOURCE_DIR}" "-DPGO_DIR=${EMX_PGO_DIR}"
          "-DPROGRAMS=${EMX_PROGRAM_DIR}" "-DGENERATOR=${CMAKE_GENERATOR}"
          "-DCXX=${CMAKE_CXX_COMPILER}" "-DHOST_FMA=${EMX_HOST_FMA}"
          "-DPYTHON=${Python3_EXECUTABLE}" -P "${CMAKE_SOURCE_DIR}/cmake/PgoTrain.cmake"
  DEPENDS "${CMAKE_SOURCE_DIR}/cmake/PgoTrain.cmake" "${CMAKE_SOURCE_DIR}/cmake/pgo_train.sh"
          ${training_programs}
  COMMENT "EMX_PGO: an instrumented emx and its training mix (-DEMX_PGO=OFF skips this)"
  USES_TERMINAL VERBATIM)
add_custom_target(emx_pgo_profile DEPENDS "${stamp}")

# The optimised build: every object of the simulator waits for the profile and is
# rebuilt when it is made afresh. Objects are named relative to the build directory, as
# the instrumented build's are relative to its own. A source changed since the training
# has functions whose profile no longer matches: GCC compiles those as without one.
# run_loop's table of label offsets (labels as values, sim/iss/execute.cpp) must stay in
# one section: with a profile its cold handlers would move to .text.unlikely, and the
# assembler cannot take the difference of two sections.
set_property(SOURCE "${CMAKE_SOURCE_DIR}/sim/iss/execute.cpp" DIRECTORY "${CMAKE_SOURCE_DIR}/sim"
  APPEND PROPERTY COMPILE_OPTIONS -fno-reorder-blocks-and-partition)
foreach(t IN LISTS emx_pgo_targets)
  target_compile_options(${t} PRIVATE "-fprofile-use=${EMX_PGO_DIR}/data"
    -fprofile-partial-training "-fprofile-prefix-path=${CMAKE_BINARY_DIR}"
    -Wno-missing-profile -Wno-coverage-mismatch)
  add_dependencies(${t} emx_pgo_profile)
  get_target_property(dir ${t} SOURCE_DIR)
  get_target_property(sources ${t} SOURCES)
  set(absolute)
  foreach(s IN LISTS sources)
    get_filename_component(s "${s}" ABSOLUTE BASE_DIR "${dir}")
    list(APPEND absolute "${s}")
  endforeach()
  set_property(SOURCE ${absolute} DIRECTORY "${dir}" APPEND PROPERTY OBJECT_DEPENDS "${stamp}")
endforeach()
