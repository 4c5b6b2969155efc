# SPDX-License-Identifier: Apache-2.0
# Sourced by the bash scripts here, first thing: `zc_usage_if_asked "$0" "$@"` prints the
# script's opening comment (what it does and how to call it) and exits 0 when its first argument
# is -h or --help, so that no script takes "--help" for a folder or a file it then makes.
zc_usage_if_asked() {
  case ${2-} in
    -h | --help)
      awk 'NR == 1 || /^# SPDX-License-Identifier:/ { next }
           /^#/ { sub(/^# ?/, ""); print; next }
           { exit }' "$1"
      exit 0
      ;;
  esac
}
