# SPDX-License-Identifier: Apache-2.0
# Man pages and shell completion for zc, made at build time from zc's own --help texts so that
# they cannot say other than the program: zc.1 and zc-COMMAND.1 by help2man
# (cmake/zc-man-page.sh), bash and zsh completion by cmake/zc-completion.sh. Included from
# tools/zc/CMakeLists.txt after the zc target.

# The commands, one page each: the names of the table in commands.c, read again when it changes.
set(zc_commands_source ${CMAKE_CURRENT_SOURCE_DIR}/commands.c)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${zc_commands_source})
file(STRINGS ${zc_commands_source} zc_command_rows REGEX "^ *{\"[a-z]+\", \"")
set(zc_command_names)
foreach(row IN LISTS zc_command_rows)
  string(REGEX REPLACE "^ *{\"([a-z]+)\".*" "\\1" name "${row}")
  list(APPEND zc_command_names ${name})
endforeach()

set(zc_help_options ${PROJECT_SOURCE_DIR}/cmake/zc-help-options.sh)
set(zc_man_page_script ${PROJECT_SOURCE_DIR}/cmake/zc-man-page.sh)
set(zc_completion_script ${PROJECT_SOURCE_DIR}/cmake/zc-completion.sh)
set(ZC_MAN_DIR ${CMAKE_CURRENT_BINARY_DIR}/man)
set(ZC_COMPLETION_DIR ${CMAKE_CURRENT_BINARY_DIR}/completion)
file(MAKE_DIRECTORY ${ZC_MAN_DIR} ${ZC_COMPLETION_DIR})

find_program(ZC_HELP2MAN help2man)
# A help2man that cannot run (one unpacked without its Perl modules) would fail the build: it
# counts as none.
if(ZC_HELP2MAN)
  execute_process(COMMAND ${ZC_HELP2MAN} --version RESULT_VARIABLE zc_help2man_rc
    OUTPUT_QUIET ERROR_QUIET)
  if(NOT zc_help2man_rc EQUAL 0)
    message(WARNING "${ZC_HELP2MAN} does not run (help2man --version failed)")
    set(ZC_HELP2MAN "")
  endif()
endif()
# The tests find what was made through the zc target ($<TARGET_PROPERTY:zc,ZC_MAN_DIR>);
# ZC_HELP2MAN is empty when there are no man pages to check.
set_target_properties(zc PROPERTIES ZC_MAN_DIR ${ZC_MAN_DIR} ZC_COMPLETION_DIR ${ZC_COMPLETION_DIR}
  ZC_HELP2MAN "")
set(zc_man_pages)
if(ZC_HELP2MAN)
  set_target_properties(zc PROPERTIES ZC_HELP2MAN ${ZC_HELP2MAN})
  foreach(page zc ${zc_command_names})
    if(NOT page STREQUAL "zc")
      set(page zc-${page})
    endif()
    add_custom_command(OUTPUT ${ZC_MAN_DIR}/${page}.1
      COMMAND sh ${zc_man_page_script} ${ZC_HELP2MAN} $<TARGET_FILE:zc> ${PROJECT_VERSION}
              ${ZC_MAN_DIR}/${page}.1 ${page} ${zc_command_names}
      DEPENDS zc ${zc_man_page_script}
      COMMENT "Making the man page ${page}.1 from its --help"
      VERBATIM)
    list(APPEND zc_man_pages ${ZC_MAN_DIR}/${page}.1)
  endforeach()
  install(FILES ${zc_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "help2man not found: zc gets no man pages (scripts/deps installs it)")
endif()

set(zc_completions ${ZC_COMPLETION_DIR}/zc ${ZC_COMPLETION_DIR}/_zc)
add_custom_command(OUTPUT ${ZC_COMPLETION_DIR}/zc
  COMMAND sh ${zc_completion_script} $<TARGET_FILE:zc> bash ${ZC_COMPLETION_DIR}/zc
  DEPENDS zc ${zc_completion_script} ${zc_help_options}
  COMMENT "Making zc's bash completion from its --help texts"
  VERBATIM)
add_custom_command(OUTPUT ${ZC_COMPLETION_DIR}/_zc
  COMMAND sh ${zc_completion_script} $<TARGET_FILE:zc> zsh ${ZC_COMPLETION_DIR}/_zc
  DEPENDS zc ${zc_completion_script} ${zc_help_options}
  COMMENT "Making zc's zsh completion from its --help texts"
  VERBATIM)
add_custom_target(zc_man_and_completion ALL DEPENDS ${zc_man_pages} ${zc_completions})
install(FILES ${ZC_COMPLETION_DIR}/zc
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${ZC_COMPLETION_DIR}/_zc DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
