#!/bin/sh
# curl on every endpoint of `heed serve` (Argos, BERT and stories260K models converted here): the
# statuses, and /translate's text equal to `heed translate`'s. On ARM builds heed runs under the
# emulator (qemu-user) and curl on the host talks to it over loopback.
# usage: serve_curl_test.sh EMULATOR HEED SOURCE_DIR SHARED_DIR FOLDER   (EMULATOR may be "")
set -u
emu=$1 heed=$2 src=$3 shared=$4 dir=$5
rm -rf "$dir" && mkdir -p "$dir" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

$emu "$heed" convert "$src/tests/fixtures/argos/tiny-en-de.argosmodel" -o "$dir/argos.heed" --quiet || exit 1
$emu "$heed" convert "$src/tests/fixtures/hf-bert/model" -o "$dir/bert.heed" --quiet || exit 1
$emu "$heed" convert "$shared/models/llama2c/stories260k" -o "$dir/stories.heed" --quiet || exit 1
$emu "$heed" serve -m "$dir/argos.heed" -m "$dir/bert.heed" -m "$dir/stories.heed" --port 0 2>"$dir/log" &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
port=
for _ in $(seq 600); do  # up to 60 s: qemu starts slowly
  port=$(sed -n 's/.*"event":"listening".*"port":\([0-9]*\).*/\1/p' "$dir/log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "FAIL: heed serve did not start: $(cat "$dir/log")"; exit 1; }
url=http://127.0.0.1:$port

# status METHOD PATH EXPECTED [curl arguments]: the answer's status; the body is left in $dir/body.
status() {
  method=$1 path=$2 want=$3
  shift 3
  got=$(curl -s -o "$dir/body" -w '%{http_code}' -X "$method" "$@" "$url$path")
  [ "$got" = "$want" ] || fail "$method $path: status $got, expected $want: $(cat "$dir/body")"
}
json='Content-Type: application/json'
status GET /health 200
grep -q '"status":"ok"' "$dir/body" || fail "/health: $(cat "$dir/body")"
status GET /languages 200
grep -q '"code":"en"' "$dir/body" || fail "/languages: $(cat "$dir/body")"
status POST /translate 200 -H "$json" -d '{"q":"Hello world.","source":"en","target":"de"}'
expected=$(echo "Hello world." | $emu "$heed" translate -m "$dir/argos.heed")
got=$(sed -n 's/^{"translatedText":"\(.*\)"}$/\1/p' "$dir/body")
[ "$got" = "$expected" ] || fail "/translate: got '$got', heed translate printed '$expected'"
status POST /translate 200 --data-urlencode "q=Hello world." -d source=en -d target=de
status POST /translate 200 -F "q=Hello world." -F source=en -F target=de
got=$(sed -n 's/^{"translatedText":"\(.*\)"}$/\1/p' "$dir/body")
[ "$got" = "$expected" ] || fail "/translate, multipart: got '$got', heed translate printed '$expected'"
status POST /translate 400 -H "$json" -d '{"q":"Hello","source":"en","target":"fr"}'
status POST /detect 501 -d q=Hello
status GET /v1/models 200
grep -q '"id":"stories"' "$dir/body" || fail "/v1/models: $(cat "$dir/body")"
status GET /v1/models/bert 200
grep -q '"id":"bert"' "$dir/body" || fail "/v1/models/bert: $(cat "$dir/body")"
status GET /v1/models/nope 404
status POST /v1/embeddings 200 -H "$json" -d '{"model":"bert","input":"A sentence."}'
status POST /v1/completions 200 -H "$json" -d '{"model":"stories","prompt":"Once","max_tokens":8,"temperature":0}'
status POST /v1/completions 200 -H "$json" -d '{"model":"stories","prompt":"Once","max_tokens":8,"stream":true}'
grep -q '^data: \[DONE\]' "$dir/body" || fail "streamed completion does not end with [DONE]: $(cat "$dir/body")"
status GET /missing 404

kill -TERM $pid
wait $pid
code=$?
[ $code -eq 0 ] || fail "heed serve exited $code after SIGTERM"
[ "$(grep -c '"endpoint"' "$dir/log")" -eq 14 ] || fail "request log: $(cat "$dir/log")"
[ $failures -eq 0 ] && echo "serve_curl_test: all passed"
exit $((failures > 0))
