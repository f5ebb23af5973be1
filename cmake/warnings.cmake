# Project-wide warning and sanitizer flags, applied to every target below the root.
add_compile_options(-Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion)
if(IBSDN_WERROR)
  add_compile_options(-Werror)
endif()
if(IBSDN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
