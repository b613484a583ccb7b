#!/usr/bin/env bash
# Certificates for TLS tests and benchmarks, into DIR (made if missing):
#   ca.crt/.key           a CA
#   server.crt/.key       from ca: subjectAltName IP:127.0.0.1, DNS:berth.test
#   client.crt/.key       from ca: CN=alice, O=dev, O=ops (user alice, groups dev and ops)
#   other-ca.crt/.key     a second CA
#   mallory.crt/.key      from other-ca: CN=mallory (a client certificate no server trusts)
# EC P-256 keys, valid for two days. Usage: scripts/make-test-certs.sh DIR
set -euo pipefail
dir=${1:?usage: make-test-certs.sh DIR}
mkdir -p "$dir"
cd "$dir"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1" 2>/dev/null; }
ca() {
  key "$1.key"
  openssl req -x509 -new -key "$1.key" -out "$1.crt" -days 2 -subj "/CN=$1" 2>/dev/null
}
leaf() {  # NAME CA SUBJECT EXTENSION
  key "$1.key"
  openssl req -new -key "$1.key" -out "$1.csr" -subj "$3" 2>/dev/null
  printf '%s\n' "$4" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial -out "$1.crt" -days 2 \
    -extfile "$1.ext" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
ca ca
ca other-ca
leaf server ca /CN=berth-server "subjectAltName=IP:127.0.0.1,DNS:berth.test"
leaf client ca "/O=dev/O=ops/CN=alice" "extendedKeyUsage=clientAuth"
leaf mallory other-ca "/CN=mallory" "extendedKeyUsage=clientAuth"
