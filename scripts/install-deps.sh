#!/usr/bin/env bash
# Installs the Debian packages berth's build and tests need, only those missing.
# Idempotent and quiet when there is nothing to do. Uses sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libboost1.81-dev libboost-json1.81-dev libssl-dev openssl
  libyaml-cpp-dev libcli11-dev libspdlog-dev libfmt-dev libre2-dev
  libgtest-dev libgmock-dev libbenchmark-dev libgoogle-perftools-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  clang-16 libclang-rt-16-dev lld
  python3 python3-kubernetes python3-cryptography
  etcd-server prometheus google-perftools chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
    missing+=("$p")
  fi
done
# Node.js and npm run the browser test (tests/ui): Debian's, unless a node is
# already there (another distribution's nodejs carries its own npm).
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The browser test's pinned playwright-core (tests/ui/package-lock.json); it
# drives Debian's chromium, so npm downloads no browser.
ui_tests="$(dirname "$0")/../tests/ui"
if [ ! -d "$ui_tests/node_modules/playwright-core" ]; then
  echo "install-deps: npm ci in tests/ui"
  (cd "$ui_tests" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi
