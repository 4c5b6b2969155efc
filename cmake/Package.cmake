# SPDX-License-Identifier: Apache-2.0
# The Debian package of an install, made by `cpack` in a build folder (scripts/check-install
# makes and unpacks one): one package, zerocopy_VERSION_ARCH.deb, with the libraries, headers,
# zc, its man pages and completion, the CMake and pkg-config files, and the licence. Included
# from the top-level CMakeLists.txt after every install rule.
#
# One package rather than Debian's split into libzerocopy0, libzerocopy-dev and zerocopy-tools:
# the headers and the static library are small, and zc needs the library anyway.

# Debian's machine-readable copyright file beside LICENSE (/usr/share/doc/zerocopy/copyright),
# where dpkg users and tools look for a package's licence.
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/copyright @ONLY CONTENT [[
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: @PROJECT_NAME@
Comment: The licence's full text is LICENSE in this folder.

Files: *
License: @ZC_LICENSE@
]])
install(FILES ${PROJECT_BINARY_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ${PROJECT_NAME})
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
# Debian's file name (zerocopy_VERSION_ARCH.deb) and its prefix, whatever the build's was.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES OFF)
# A packager names themselves with -DCPACK_PACKAGE_CONTACT="Name <mail>"; dpkg needs some name.
if(NOT CPACK_PACKAGE_CONTACT)
  set(CPACK_PACKAGE_CONTACT "zerocopy developers")
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Debian's control file has no licence field: the description says it, and the copyright file
# above has it in Debian's own form.
# cpack writes the summary as the first line and indents each line of this below it. zc's
# commands are read from its table (tools/zc/commands.c, as its man pages are), so that the
# description names each one.
file(STRINGS ${PROJECT_SOURCE_DIR}/tools/zc/commands.c zc_package_rows REGEX "^ *{\"[a-z]+\", \"")
set(zc_package_commands)
foreach(row IN LISTS zc_package_rows)
  string(REGEX REPLACE "^ *{\"([a-z]+)\".*" "\\1" name "${row}")
  if(NOT name MATCHES "^(help|version)$")
    list(APPEND zc_package_commands ${name})
  endif()
endforeach()
list(JOIN zc_package_commands ", " zc_package_commands)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "The zerocopy library (shared and static, headers, CMake \
and pkg-config files) and the zc tool (${zc_package_commands}) with its man pages and bash and \
zsh completion.
Licence: ${ZC_LICENSE} (/usr/share/doc/zerocopy/copyright and LICENSE).")

# Depends: what the library and zc link from Debian (readelf -d: libc, libstdc++, libgcc,
# cJSON), and the CUDA runtime (libcudart.so.MAJOR), which zc loads for every command, even
# --version: NVIDIA's repository calls its package cuda-cudart-MAJOR-MINOR (of the toolkit this
# was built with), Debian's non-free one libcudartMAJOR. A toolkit installed from NVIDIA's runfile is no package: there,
# install with the runtime's package from NVIDIA's repository, or use the install tree
# (cmake --install) instead of the .deb. dpkg-shlibdeps cannot be used for the same reason: it
# fails on a library that no package owns.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(zc_cuda_mm "${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libstdc++6, libgcc-s1, libcjson1 (>= 1.7), \
cuda-cudart-${zc_cuda_mm} | libcudart${CUDAToolkit_VERSION_MAJOR}")
# cJSON's headers for <zerocopy/json.h> and <zerocopy/report.h>, and pkg-config for consumers.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libcjson-dev, pkg-config, cuda-cupti-${zc_cuda_mm}")
include(CPack)
