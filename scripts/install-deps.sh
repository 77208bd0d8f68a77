#!/bin/sh
# Installs what RocketAlert needs from Debian and PyPI, and nothing that is already there.
# The README's two set-up commands and .ci/run call it; it is safe to run again.
#
#   sh scripts/install-deps.sh           what `swift build` and `swift run rocket demo` need
#   sh scripts/install-deps.sh --tests   that, and what `sh scripts/test.sh` needs besides
#   sh scripts/install-deps.sh --bench   that, and wrk for scripts/bench-serve.py (docs/BENCHMARKS.md)
#
# Needed to build (C headers and static archives of the system libraries our targets wrap):
#   libpng-dev, libjpeg-dev, zlib1g-dev   pictures in flows (CImageCodecs)
#   libsqlite3-dev                        the scenario store and the server's archive (CSQLite)
#   libpcre2-dev                          validation and branch patterns (CPCRE2)
#   libmicrohttpd-dev                     `rocket serve` (CMicroHTTPD)
#   libpq-dev, postgresql-server-dev-15   the PostgreSQL store (CPostgres: libpq's static archive and
#                                         the libpgcommon and libpgport archives it needs), libssl-dev
# Needed by the tests only:
#   postgresql-15                         the PostgreSQL server the store's tests start (scripts/postgres-cluster.sh)
#   nginx, openssl                        the deployment test (Tests/Deploy: TLS at nginx in front of three instances)
#   chromium, python3-pip + playwright    the browser tests (Playwright drives Debian's chromium)
#   jsonschema (pip)                      the test that holds `rocket schema` to what lint refuses
#   axe-playwright-python (pip)           axe-core's accessibility rules in the browser tests
#   tmux, bash-completion, zsh, fish      the terminal and completion tests that drive them
#   fonts-noto-color-emoji                flows' emoji in the browser tests' screenshots, as visitors see them
#   systemd, strace                       the unit files' test (systemd-analyze verify; the system calls a
#                                         server makes, held to the unit's SystemCallFilter=)
# Needed by the server's benchmark only (besides nginx, chromium and Playwright above):
#   wrk                                   the HTTP load beside nginx
set -eu

tests=no
bench=no
for arg in "$@"; do
  case "$arg" in
    --tests) tests=yes ;;
    --bench) tests=yes bench=yes ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "install-deps: unknown argument '$arg' (try --tests, --bench or --help)" >&2; exit 64 ;;
  esac
done

say() { echo "install-deps: $*" >&2; }
# Where the checked files are looked for (a test points it at an empty folder; normally /).
root=${INSTALL_DEPS_ROOT:-}

# A Debian package is needed when a file it provides is missing: the check costs no package look-up.
missing=""
need() { # FILE PACKAGE WHY
  if [ ! -e "$root$1" ]; then
    missing="$missing $2"
    say "needs $2 ($3): $root$1 is missing"
  fi
}
need /usr/include/png.h libpng-dev "PNG pictures"
need /usr/include/jpeglib.h libjpeg-dev "JPEG pictures"
need /usr/include/zlib.h zlib1g-dev "compressed PNG data and gzip"
need /usr/include/sqlite3.h libsqlite3-dev "the scenario store"
need /usr/include/pcre2.h libpcre2-dev "bounded validation patterns"
need /usr/include/microhttpd.h libmicrohttpd-dev "rocket serve"
need /usr/include/postgresql/libpq-fe.h libpq-dev "the PostgreSQL store"
need /usr/lib/postgresql/15/lib/libpgcommon_shlib.a postgresql-server-dev-15 "libpq's static archive links against it"
need /usr/include/openssl/ssl.h libssl-dev "libpq's TLS and SCRAM"
if [ "$tests" = yes ]; then
  need /usr/lib/postgresql/15/bin/initdb postgresql-15 "the PostgreSQL store's tests"
  command -v nginx > /dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { missing="$missing nginx"; say "needs nginx (the deployment test)"; }
  command -v openssl > /dev/null 2>&1 || { missing="$missing openssl"; say "needs openssl (the deployment test's certificate)"; }
  command -v chromium > /dev/null 2>&1 || command -v chromium-browser > /dev/null 2>&1 \
    || { missing="$missing chromium"; say "needs chromium (the browser tests)"; }
  command -v tmux > /dev/null 2>&1 || { missing="$missing tmux"; say "needs tmux (the terminal tests)"; }
  [ -e /usr/share/bash-completion/bash_completion ] \
    || { missing="$missing bash-completion"; say "needs bash-completion (the completion tests)"; }
  command -v zsh > /dev/null 2>&1 || { missing="$missing zsh"; say "needs zsh (the completion tests)"; }
  command -v fish > /dev/null 2>&1 || { missing="$missing fish"; say "needs fish (the completion tests)"; }
  need /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf fonts-noto-color-emoji "emoji in the browser tests' screenshots"
  command -v systemd-analyze > /dev/null 2>&1 || { missing="$missing systemd"; say "needs systemd (systemd-analyze: the unit files' test)"; }
  command -v strace > /dev/null 2>&1 || { missing="$missing strace"; say "needs strace (the unit file's system-call filter test)"; }
  python3 -c 'import playwright, jsonschema' > /dev/null 2>&1 || python3 -m pip --version > /dev/null 2>&1 \
    || { missing="$missing python3-pip"; say "needs python3-pip (to install Playwright and jsonschema)"; }
fi
if [ "$bench" = yes ]; then
  command -v wrk > /dev/null 2>&1 || { missing="$missing wrk"; say "needs wrk (the server's benchmark)"; }
fi

if [ -n "$missing" ]; then
  if [ "$(id -u)" -eq 0 ]; then
    sudo=""
  elif command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null; then
    sudo="sudo -n"
  else
    say "error: cannot install$missing: this needs root (run as root, or give this user sudo), or install them yourself: apt-get install$missing"
    exit 69
  fi
  if ! command -v apt-get > /dev/null 2>&1; then
    say "error: cannot install$missing: there is no apt-get (RocketAlert's script knows Debian and Ubuntu); install the same libraries with your system's package manager"
    exit 69
  fi
  say "installing$missing with apt-get"
  # shellcheck disable=SC2086
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing; } > /tmp/rocket-install-deps.log 2>&1; then
    tail -n 20 /tmp/rocket-install-deps.log >&2
    say "error: apt-get could not install$missing (the log is /tmp/rocket-install-deps.log)"
    exit 69
  fi
fi

if [ "$tests" = yes ]; then
  # module to import, then the package pip installs it from
  for pair in playwright:playwright jsonschema:jsonschema axe_playwright_python:axe-playwright-python; do
    module=${pair%%:*} package=${pair#*:}
    python3 -c "import $module" > /dev/null 2>&1 && continue
    say "installing the Python module $module with pip (no browser is downloaded: Playwright drives Debian's chromium)"
    python3 -m pip install -q "$package" 2> /dev/null || python3 -m pip install -q --break-system-packages "$package" \
      || { say "error: pip could not install $package"; exit 69; }
  done
fi
say "ok: everything needed is installed"
