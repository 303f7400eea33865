# Building C and assembly for the simulated EM-X PE (RV32IMF + EMC-Y) inside the host
# build: custom commands around riscv64-unknown-elf-gcc rather than a second toolchain,
# so `ninja` builds the simulator and the programs it runs in one go.
#
#   emx_add_target_library(NAME [OUTPUT_NAME name] SOURCES ... [COMPILE_OPTIONS ...])
#       -> ${CMAKE_CURRENT_BINARY_DIR}/lib<name>.a, built by target NAME
#   emx_add_program(NAME SOURCES ... [LIBS lib-target ...])
#       -> ${CMAKE_BINARY_DIR}/programs/NAME.elf (one flat directory: the simulator and
#          the tests find programs by name), built by target NAME
#   emx_compile_target_object(SOURCE OBJECT [COMPILE_OPTIONS ...])
#       one source -> one object, for start files
#
# Programs link crt0, the runtime (target emx_runtime, runtime/CMakeLists.txt), picolibc
# and libgcc with runtime/link/emx.ld. scripts/emx-cc does the same outside CMake, with the flags
# written to ${CMAKE_BINARY_DIR}/runtime/emx-cc.env below.

find_program(EMX_TARGET_CC riscv64-unknown-elf-gcc)
find_program(EMX_TARGET_AR riscv64-unknown-elf-ar)
if(NOT EMX_TARGET_CC OR NOT EMX_TARGET_AR)
  message(FATAL_ERROR
    "riscv64-unknown-elf-gcc / riscv64-unknown-elf-ar not found: the programs for the "
    "simulated machine need them. Install the Debian package gcc-riscv64-unknown-elf "
    "(apt-get install gcc-riscv64-unknown-elf), or set EMX_TARGET_CC and EMX_TARGET_AR.")
endif()

set(EMX_SOURCE_ROOT "${CMAKE_CURRENT_LIST_DIR}/..")
get_filename_component(EMX_SOURCE_ROOT "${EMX_SOURCE_ROOT}" ABSOLUTE)
set(EMX_PROGRAM_DIR "${CMAKE_BINARY_DIR}/programs")
set(EMX_LINKER_SCRIPT "${EMX_SOURCE_ROOT}/runtime/link/emx.ld")

# The C library: picolibc, Debian's build for RV32IMF/ilp32f (package
# picolibc-riscv64-unknown-elf), its "release" variant (optimised for speed rather than
# size). The platform layer under it is the runtime's (runtime/src, docs/runtime.md).
set(EMX_PICOLIBC_DIR "/usr/lib/picolibc/riscv64-unknown-elf" CACHE PATH
    "picolibc for riscv64-unknown-elf (holds include/ and lib/)")
set(EMX_PICOLIBC_INCLUDE "${EMX_PICOLIBC_DIR}/include/release")
set(EMX_PICOLIBC_LIB "${EMX_PICOLIBC_DIR}/lib/release/rv32imf/ilp32f")
if(NOT EXISTS "${EMX_PICOLIBC_INCLUDE}/picolibc.h" OR NOT EXISTS "${EMX_PICOLIBC_LIB}/libc.a")
  message(FATAL_ERROR
    "picolibc for RV32IMF/ilp32f not found under ${EMX_PICOLIBC_DIR}: the programs for the "
    "simulated machine use it as their C library. Install the Debian package "
    "picolibc-riscv64-unknown-elf (scripts/setup does), or set EMX_PICOLIBC_DIR.")
endif()

# Why each flag:
#  -march/-mabi     the PE: RV32IMF, floats in FP registers (no D: doubles are soft-float)
#  -ffreestanding   no operating system: GCC assumes nothing about main or the start-up
#  -fbuiltin        ...but the C library is complete, so let GCC inline small memcpy,
#                   fold strlen, turn printf("x\n") into puts
#  -fno-math-errno  picolibc's libm never sets errno (IEEE semantics): __builtin_sqrtf
#                   is a bare fsqrt.s, not a call to sqrtf
#  -mstrict-align   a misaligned access faults on the PE, so GCC must never emit one
#  -g               the simulator names functions and lines in fault reports
#  -ffunction-sections -fdata-sections with --gc-sections: unused runtime and library
#                   functions stay out of the code segment the simulator decodes
#  -Werror=implicit-function-declaration  a call without a prototype is an error, so a
#                   function missing from a header is found at compile time
#  -isystem picolibc, -ftls-model=local-exec  what picolibc's own specs file sets
#  -D__INT32_TYPE__=int ...  the 32-bit types are int, as on Linux for RV32 and x86:
#                   GCC's bare-metal ABI makes int32_t a long, so printf("%d", an
#                   int32_t) would warn and int32_t * would not mix with int *; sizes
#                   and the calling convention are the same either way
set(EMX_TARGET_ARCH_FLAGS -march=rv32imf -mabi=ilp32f)
set(EMX_TARGET_CFLAGS
  ${EMX_TARGET_ARCH_FLAGS} -O2 -g -ffreestanding -fbuiltin -fno-math-errno -mstrict-align
  -ffunction-sections -fdata-sections -Wall -Wextra -Werror=implicit-function-declaration
  -U__INT32_TYPE__ -D__INT32_TYPE__=int -U__UINT32_TYPE__ "-D__UINT32_TYPE__=unsigned int"
  -U__INT_LEAST32_TYPE__ -D__INT_LEAST32_TYPE__=int
  -U__UINT_LEAST32_TYPE__ "-D__UINT_LEAST32_TYPE__=unsigned int"
  -ftls-model=local-exec
  "-I${EMX_SOURCE_ROOT}/runtime/include" -isystem "${EMX_PICOLIBC_INCLUDE}")
# -u: the runtime's memcpy (with memmove, memset), malloc (with the rest of the
# allocator) and abort are pulled in before picolibc's archive is searched, so picolibc's
# own calls resolve to them too and no program gets two versions (runtime/src/copy.c,
# malloc.c, abort.c say why they are the runtime's).
set(EMX_TARGET_LDFLAGS
  ${EMX_TARGET_ARCH_FLAGS} -nostdlib -static -Wl,--gc-sections -Wl,--build-id=none
  -Wl,-u,memcpy -Wl,-u,malloc -Wl,-u,abort
  "-T${EMX_LINKER_SCRIPT}")
# After the program's objects and libraries, in one group: the runtime, picolibc's
# libc and libm, libgcc.
set(EMX_TARGET_SYSTEM_LIBS
  "${EMX_PICOLIBC_LIB}/libc.a" "${EMX_PICOLIBC_LIB}/libm.a" -lgcc)

# Object path for a source: mirrors the source tree under CMakeFiles/<tag>.dir.
function(_emx_object_path out tag src)
  file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${src}")
  string(REPLACE "../" "__/" rel "${rel}")
  set(${out} "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${tag}.dir/${rel}.o" PARENT_SCOPE)
endfunction()

function(emx_compile_target_object src obj)
  cmake_parse_arguments(ARG "" "" "COMPILE_OPTIONS" ${ARGN})
  get_filename_component(src "${src}" ABSOLUTE)
  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${obj}")
  add_custom_command(
    OUTPUT "${obj}"
    COMMAND ${EMX_TARGET_CC} ${EMX_TARGET_CFLAGS} ${ARG_COMPILE_OPTIONS}
            -MD -MF "${obj}.d" -c "${src}" -o "${obj}"
    DEPENDS "${src}"
    DEPFILE "${obj}.d"
    COMMENT "Building EM-X object ${shown}"
    VERBATIM)
endfunction()

# Compiles every source for target `tag`; the list of objects goes to `out`.
function(_emx_compile_sources out tag)
  cmake_parse_arguments(ARG "" "" "SOURCES;COMPILE_OPTIONS" ${ARGN})
  set(objs)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE)
    _emx_object_path(obj ${tag} "${src}")
    emx_compile_target_object("${src}" "${obj}" COMPILE_OPTIONS ${ARG_COMPILE_OPTIONS})
    list(APPEND objs "${obj}")
  endforeach()
  set(${out} ${objs} PARENT_SCOPE)
endfunction()

function(emx_add_target_library name)
  cmake_parse_arguments(ARG "" "OUTPUT_NAME" "SOURCES;COMPILE_OPTIONS" ${ARGN})
  if(NOT ARG_OUTPUT_NAME)
    set(ARG_OUTPUT_NAME ${name})
  endif()
  _emx_compile_sources(objs ${name} SOURCES ${ARG_SOURCES} COMPILE_OPTIONS ${ARG_COMPILE_OPTIONS})
  set(archive "${CMAKE_CURRENT_BINARY_DIR}/lib${ARG_OUTPUT_NAME}.a")
  add_custom_command(
    OUTPUT "${archive}"
    # ar adds to an existing archive: start afresh so removed sources do not linger.
    COMMAND ${CMAKE_COMMAND} -E rm -f "${archive}"
    COMMAND ${EMX_TARGET_AR} rcs "${archive}" ${objs}
    DEPENDS ${objs}
    COMMENT "Archiving EM-X library lib${ARG_OUTPUT_NAME}.a"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS "${archive}")
  set_target_properties(${name} PROPERTIES EMX_ARCHIVE "${archive}")
endfunction()

function(emx_add_program name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  _emx_compile_sources(objs ${name} SOURCES ${ARG_SOURCES})
  # Libraries by target name, read at generate time so the order of definition
  # does not matter; the runtime comes last as every library may use it.
  set(archives)
  foreach(lib IN LISTS ARG_LIBS ITEMS emx_runtime)
    list(APPEND archives "$<TARGET_PROPERTY:${lib},EMX_ARCHIVE>")
  endforeach()
  set(crt0 "$<TARGET_PROPERTY:emx_runtime,EMX_CRT0>")
  set(elf "${EMX_PROGRAM_DIR}/${name}.elf")
  add_custom_command(
    OUTPUT "${elf}"
    COMMAND ${EMX_TARGET_CC} ${EMX_TARGET_LDFLAGS} -o "${elf}" "${crt0}" ${objs}
            -Wl,--start-group ${archives} ${EMX_TARGET_SYSTEM_LIBS} -Wl,--end-group
    DEPENDS ${objs} ${archives} "${crt0}" "${EMX_LINKER_SCRIPT}"
    COMMENT "Linking EM-X program programs/${name}.elf"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS "${elf}")
  add_dependencies(${name} emx_runtime ${ARG_LIBS})
  set_target_properties(${name} PROPERTIES EMX_ELF "${elf}")
endfunction()

# The same flags for scripts/emx-cc, as bash arrays it sources (call once the runtime
# targets exist: runtime/CMakeLists.txt).
function(emx_write_cc_env)
  foreach(var EMX_TARGET_CFLAGS EMX_TARGET_LDFLAGS EMX_TARGET_SYSTEM_LIBS)
    list(TRANSFORM ${var} PREPEND "'" OUTPUT_VARIABLE quoted)
    list(TRANSFORM quoted APPEND "'")
    list(JOIN quoted " " ${var}_TEXT)
  endforeach()
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/runtime/emx-cc.env" CONTENT
"# Written by cmake/EmxTarget.cmake for scripts/emx-cc; do not edit.
EMX_TARGET_CC='${EMX_TARGET_CC}'
EMX_TARGET_CFLAGS=(${EMX_TARGET_CFLAGS_TEXT})
EMX_TARGET_LDFLAGS=(${EMX_TARGET_LDFLAGS_TEXT})
EMX_TARGET_SYSTEM_LIBS=(${EMX_TARGET_SYSTEM_LIBS_TEXT})
EMX_CRT0='$<TARGET_PROPERTY:emx_runtime,EMX_CRT0>'
EMX_RUNTIME_LIB='$<TARGET_PROPERTY:emx_runtime,EMX_ARCHIVE>'
")
endfunction()

# An MPI program (docs/mpi.md): emx_add_program with MPI-EMX (runtime target emx_mpi).
#   emx_add_mpi_program(NAME SOURCES ... [LIBS lib-target ...])
function(emx_add_mpi_program name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  emx_add_program(${name} SOURCES ${ARG_SOURCES} LIBS ${ARG_LIBS} emx_mpi)
endfunction()
