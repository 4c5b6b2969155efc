# SPDX-License-Identifier: Apache-2.0
# Dependencies from the distribution's packages: cJSON (the library's JSON documents, the tool)
# and cmocka (the tests).
# Found by header and library name so that a prefix unpacked from .deb files works as well as
# /usr: pass -DCMAKE_PREFIX_PATH=<prefix>/usr.
find_path(ZC_CJSON_INCLUDE_DIR cjson/cJSON.h)
find_library(ZC_CJSON_LIBRARY cjson)
if(NOT ZC_CJSON_INCLUDE_DIR OR NOT ZC_CJSON_LIBRARY)
  message(FATAL_ERROR "cJSON not found: install Debian's libcjson-dev (scripts/deps does it)")
endif()
add_library(zc_cjson INTERFACE)
target_include_directories(zc_cjson INTERFACE ${ZC_CJSON_INCLUDE_DIR})
target_link_libraries(zc_cjson INTERFACE ${ZC_CJSON_LIBRARY})

if(ZC_BUILD_TESTS)
  find_path(ZC_CMOCKA_INCLUDE_DIR cmocka.h)
  find_library(ZC_CMOCKA_LIBRARY cmocka)
  if(NOT ZC_CMOCKA_INCLUDE_DIR OR NOT ZC_CMOCKA_LIBRARY)
    message(FATAL_ERROR "cmocka not found: install Debian's libcmocka-dev (scripts/deps does it)")
  endif()
  add_library(zc_cmocka INTERFACE)
  target_include_directories(zc_cmocka INTERFACE ${ZC_CMOCKA_INCLUDE_DIR})
  target_link_libraries(zc_cmocka INTERFACE ${ZC_CMOCKA_LIBRARY})
endif()
