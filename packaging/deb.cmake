# The Debian package, ibsdn_<version>_<arch>.deb (CPack's DEB generator):
#   cpack --config BUILD_DIR/CPackConfig.cmake -B OUT_DIR
# Depends: what dpkg-shlibdeps finds the installed programs and libosmsdn.so linked against, and
# opensm itself, of the upstream version the plugin was built for.
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  message(STATUS "packaging: no .deb with CMAKE_INSTALL_PREFIX=${CMAKE_INSTALL_PREFIX}: "
                 "configure with -DCMAKE_INSTALL_PREFIX=/usr (scripts/build.sh does)")
  return()
endif()
get_property(IBSDN_OPENSM_VERSION GLOBAL PROPERTY IBSDN_OPENSM_VERSION)
if(NOT IBSDN_OPENSM_VERSION)
  message(STATUS "packaging: no .deb without libosmsdn.so (libopensm-dev not found)")
  return()
endif()

# opensm refuses a plugin built against another OSM_VERSION ("OpenSM 3.3.23"): any Debian
# revision of that upstream version, nothing newer (3.3.24~ sorts below 3.3.24 pre-releases too).
string(REPLACE "." ";" opensm_parts ${IBSDN_OPENSM_VERSION})
list(GET opensm_parts 2 opensm_patch)
math(EXPR opensm_next_patch "${opensm_patch} + 1")
list(REMOVE_AT opensm_parts 2)
list(APPEND opensm_parts ${opensm_next_patch})
list(JOIN opensm_parts "." opensm_next)

# dpkg marks these as conffiles: an upgrade keeps the administrator's changes.
set(conffiles "${IBSDN_OPENSM_CONF_DIR}/ibsdn.yaml\n"
              "${CMAKE_INSTALL_FULL_SYSCONFDIR}/default/ibsdn-switch-agent\n")
if(TARGET ibsdn-slurm-hook)
  list(APPEND conffiles "${CMAKE_INSTALL_FULL_SYSCONFDIR}/ibsdn/slurm-hook.conf\n")
endif()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/deb/conffiles ${conffiles})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ibsdn)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "ibsdn")
set(CPACK_PACKAGE_CONTACT "ibsdn maintainers <root@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "per-flow (OpenFlow-style) routing for InfiniBand, as a plugin of OpenSM")
# The summary above is the first line of the control file's Description; this is the rest.
set(slurm_text "")
if(TARGET ibsdn-slurm-hook)
  set(slurm_text "the Slurm integration
(ibsdn-slurm-hook for PrologSlurmctld and EpilogSlurmctld, its reconcile timer,
the SPANK plugin spank_ibsdn.so), ")
endif()
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "libosmsdn.so is an event plugin of the stock opensm: it adds the routing engine
sdn and an SDN controller that routes the flows of each job Slurm announces
(SDN-optimal, tapered and dragonfly variants) and installs them as flow entries
that override the switches' LFT routes.
.
This package holds the plugin, ibsdnctl (the administrators' client, with
which users also mark their jobs' phases), libibsdn-hints and ibsdn/hints.h
(the same from a program, in C), ibsdn-switch-agent (an emulated SDN switch
for ibsim fabrics), ibsdn-madtool, ibsdn-sim, ${slurm_text}example
configurations, manual pages, systemd units and bash completion.")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "opensm (>= ${IBSDN_OPENSM_VERSION}), opensm (<< ${opensm_next}~)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "ibsim-utils, infiniband-diags, slurm-wlm")
# Our own postinst / postrm also keep CPack from adding ones that call ldconfig (the triggers
# file does that part the Debian way).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_BINARY_DIR}/deb/conffiles ${CMAKE_CURRENT_SOURCE_DIR}/deb/postinst
    ${CMAKE_CURRENT_SOURCE_DIR}/deb/postrm ${CMAKE_CURRENT_SOURCE_DIR}/deb/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
# /etc and /lib/systemd are absolute destinations: stage through DESTDIR, never the real root.
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
