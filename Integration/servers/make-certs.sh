#!/usr/bin/env bash
# Generates the integration tests' TLS material with the `openssl` command only (EC P-256 keys).
#
#   make-certs.sh all  OUTDIR
#       root-ca, intermediate-ca (signed by the root) and four leaves:
#         valid       DNS:localhost + IP:127.0.0.1, signed by the intermediate
#         wrong-host  DNS:wrong.example only,         signed by the intermediate
#         expired     DNS:localhost + IP:127.0.0.1, signed by the intermediate, validity entirely in the past
#         self-signed DNS:localhost + IP:127.0.0.1, signed by its own key
#       Each NAME gets NAME.key (PEM private key), NAME.pem, NAME.der; leaves signed by the intermediate
#       also get NAME-chain.pem (leaf then intermediate), which is what nginx serves.
#       Client identities for mutual TLS (extendedKeyUsage clientAuth):
#         client      CN=AFNetworking Test Client, signed by the intermediate; also client-key.p8 (PKCS#8
#                     DER, named .p8 so that certificate loaders skip it) and client.p12 (leaf, key and intermediate; passphrase "test-passphrase")
#         stranger    CN=Stranger, self-signed: no CA nginx trusts issued it
#
#   make-certs.sh leaf OUTDIR NAME KEYFILE SAN [DAYS]
#       Issues NAME.pem/.der/-chain.pem for an existing private key (e.g. valid.key, to re-issue a leaf
#       with the same public key), signed by OUTDIR's intermediate. SAN is an openssl subjectAltName
#       value such as "DNS:localhost,IP:127.0.0.1".
set -euo pipefail

mode=${1:?usage: make-certs.sh all OUTDIR | leaf OUTDIR NAME KEYFILE SAN [DAYS]}
out=${2:?missing OUTDIR}
mkdir -p "$out"
cd "$out"

# A self-contained configuration: nothing is read from the system openssl.cnf.
write_config() {
    local san=$1
    cat > openssl.cnf <<CNF
[ req ]
distinguished_name = dn
prompt             = no
[ dn ]
CN = placeholder

[ root_ext ]
basicConstraints       = critical, CA:TRUE
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash

[ intermediate_ext ]
basicConstraints       = critical, CA:TRUE, pathlen:0
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

[ leaf_ext ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
subjectAltName         = $san

[ client_ext ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = clientAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

[ stranger_ext ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = clientAuth
subjectKeyIdentifier   = hash

[ self_signed_ext ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature, keyCertSign
extendedKeyUsage       = serverAuth
subjectKeyIdentifier   = hash
subjectAltName         = $san

# Used only for the expired leaf: 'openssl ca' is the openssl 3.0 command that accepts explicit dates.
[ ca ]
default_ca = past_ca
[ past_ca ]
dir              = ./ca-db
database         = \$dir/index.txt
new_certs_dir    = \$dir
serial           = \$dir/serial
default_md       = sha256
policy           = any_policy
unique_subject   = no
copy_extensions  = none
[ any_policy ]
commonName       = supplied
CNF
}

new_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null; }
to_der() { openssl x509 -in "$1.pem" -outform DER -out "$1.der"; }

# sign NAME CN DAYS: CSR from NAME.key, signed by the intermediate with leaf_ext.
sign_leaf() {
    local name=$1 cn=$2 days=$3 key=${4:-$1.key}
    openssl req -new -config openssl.cnf -key "$key" -subj "/CN=$cn" -out "$name.csr"
    openssl x509 -req -in "$name.csr" -CA intermediate-ca.pem -CAkey intermediate-ca.key \
        -CAcreateserial -CAserial intermediate-ca.srl -days "$days" -sha256 \
        -extfile openssl.cnf -extensions leaf_ext -out "$name.pem" 2>/dev/null
    to_der "$name"
    cat "$name.pem" intermediate-ca.pem > "$name-chain.pem"
    rm -f "$name.csr"
}

case $mode in
all)
    write_config "DNS:localhost, IP:127.0.0.1"

    new_key root-ca
    openssl req -x509 -new -config openssl.cnf -key root-ca.key -subj "/CN=AFNetworking Test Root CA" \
        -days 3650 -sha256 -extensions root_ext -out root-ca.pem
    to_der root-ca

    new_key intermediate-ca
    openssl req -new -config openssl.cnf -key intermediate-ca.key -subj "/CN=AFNetworking Test Intermediate CA" \
        -out intermediate-ca.csr
    openssl x509 -req -in intermediate-ca.csr -CA root-ca.pem -CAkey root-ca.key -CAcreateserial \
        -CAserial root-ca.srl -days 3650 -sha256 -extfile openssl.cnf -extensions intermediate_ext \
        -out intermediate-ca.pem 2>/dev/null
    to_der intermediate-ca
    rm -f intermediate-ca.csr

    new_key valid
    sign_leaf valid localhost 825

    new_key wrong-host
    write_config "DNS:wrong.example"
    sign_leaf wrong-host wrong.example 825
    write_config "DNS:localhost, IP:127.0.0.1"

    new_key expired
    mkdir -p ca-db && : > ca-db/index.txt && echo 1000 > ca-db/serial
    openssl req -new -config openssl.cnf -key expired.key -subj "/CN=localhost" -out expired.csr
    openssl ca -batch -notext -config openssl.cnf -cert intermediate-ca.pem -keyfile intermediate-ca.key \
        -startdate 20200101000000Z -enddate 20200201000000Z -extfile openssl.cnf -extensions leaf_ext \
        -in expired.csr -out expired.pem 2>/dev/null
    to_der expired
    cat expired.pem intermediate-ca.pem > expired-chain.pem
    rm -rf expired.csr ca-db

    new_key self-signed
    openssl req -x509 -new -config openssl.cnf -key self-signed.key -subj "/CN=localhost" \
        -days 825 -sha256 -extensions self_signed_ext -out self-signed.pem
    to_der self-signed

    new_key client
    openssl req -new -config openssl.cnf -key client.key -subj "/CN=AFNetworking Test Client" -out client.csr
    openssl x509 -req -in client.csr -CA intermediate-ca.pem -CAkey intermediate-ca.key \
        -CAcreateserial -CAserial intermediate-ca.srl -days 825 -sha256 \
        -extfile openssl.cnf -extensions client_ext -out client.pem 2>/dev/null
    to_der client
    cat client.pem intermediate-ca.pem > client-chain.pem
    openssl pkcs8 -topk8 -nocrypt -in client.key -outform DER -out client-key.p8
    openssl pkcs12 -export -inkey client.key -in client.pem -certfile intermediate-ca.pem \
        -passout pass:test-passphrase -out client.p12
    rm -f client.csr

    new_key stranger
    openssl req -x509 -new -config openssl.cnf -key stranger.key -subj "/CN=Stranger" \
        -days 825 -sha256 -extensions stranger_ext -out stranger.pem
    to_der stranger
    # What nginx's mutual-TLS port trusts for clients: the root, and the intermediate for clients that
    # send their leaf alone.
    cat root-ca.pem intermediate-ca.pem > client-ca-bundle.pem
    ;;
leaf)
    name=${3:?missing NAME}; key=${4:?missing KEYFILE}; san=${5:?missing SAN}; days=${6:-825}
    [ -f intermediate-ca.key ] || { echo "make-certs.sh: no intermediate CA in $out (run 'all' first)" >&2; exit 2; }
    # Tests run in parallel and re-issue leaves at once; they share openssl.cnf and the CA's serial file.
    exec 9>"leaf.lock"
    flock 9
    write_config "$san"
    sign_leaf "$name" "$name" "$days" "$key"
    ;;
*)
    echo "make-certs.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
