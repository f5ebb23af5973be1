# Precompiled headers for the targets whose files share heavy third-party headers (nlohmann-json,
# CLI11, yaml-cpp, GoogleTest): each such header costs one to three seconds of parsing in every
# file that includes it, and CI compiles the project twice (sanitizer and release builds).
# `ibsdn_precompile(TARGET header...)`; off with -DIBSDN_PCH=OFF (e.g. to check that every file
# includes what it uses).
option(IBSDN_PCH "Precompile the heavy third-party headers" ON)

function(ibsdn_precompile target)
  if(IBSDN_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
