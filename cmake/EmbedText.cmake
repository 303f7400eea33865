# cmake -DINPUT=file -DOUTPUT=file.cpp -DNAME=ns::kName -P EmbedText.cmake
# Writes a C++ file defining `const char* const NAME` as the input file's text (a raw
# string literal), so that the binary carries the file (the explorer's page template).
file(READ "${INPUT}" text)
string(FIND "${text}" ")EMXTEXT\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )EMXTEXT\"")
endif()
string(REGEX MATCH "^(.*)::([^:]+)$" _ "${NAME}")
set(ns "${CMAKE_MATCH_1}")
set(var "${CMAKE_MATCH_2}")
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cmake/EmbedText.cmake; do not edit.\nnamespace ${ns} {\nextern const char* const ${var};\nconst char* const ${var} = R\"EMXTEXT(${text})EMXTEXT\";\n}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
