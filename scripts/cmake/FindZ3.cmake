# FindZ3: Debian's libz3-dev ships z3.pc but no Z3Config.cmake, so wrap pkg-config.
find_package(PkgConfig REQUIRED)
pkg_check_modules(Z3_PC REQUIRED IMPORTED_TARGET z3>=4.8)
if(NOT TARGET Z3::Z3)
  add_library(Z3::Z3 INTERFACE IMPORTED)
  target_link_libraries(Z3::Z3 INTERFACE PkgConfig::Z3_PC)
endif()
set(Z3_FOUND TRUE)
