# Project-wide warning and sanitizer flags, applied to every target below the root.
add_compile_options(-Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion
                    $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>)
if(IBSDN_WERROR)
  add_compile_options(-Werror)
endif()
if(IBSDN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
# GCC 12 reports impossible overlaps inside std::string's operator+ at -O3 (GCC bug 105651);
# -Wrestrict finds nothing real in this code base, so keep Release builds working under -Werror.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
