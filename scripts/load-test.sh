#!/usr/bin/env bash
# Load test of the endpoints a cluster depends on: the admission webhook (POST /mutate-pods over
# TLS, as the API server calls it on every pod creation) and /metrics, on loopback. It drives
# the real `attune controller` against `attune sim serve` (built-in demo), with a real Prometheus
# scraping the simulator, and loads each endpoint with wrk (Debian's `wrk`, installed when it is
# missing). It prints requests/s, p50/p99 latency, errors, and the controller's RSS before and
# after each run.
#
#   scripts/load-test.sh [--connections N] [--duration SECONDS] [--threads T] [--binary PATH]
#
# Defaults: 200 connections, 60 s per run, 2 wrk threads, build/release/attune (built when
# missing). Each endpoint gets a 10 s warm-up and two measured runs; the figures are the second
# run's, and RSS is read before, between and after them. The webhook passes when its p99 is
# under the timeoutSeconds it ships with (deploy/base/09-mutatingwebhookconfiguration.yaml), it
# has no errors, and its RSS grows by less than 2 % over the second run. Exit status 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

connections=200
duration=60
threads=2
binary=build/release/attune
while (($#)); do
  case "$1" in
    --connections) connections=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    *) echo "load-test: unknown argument $1" >&2; exit 2 ;;
  esac
done

bash scripts/setup.sh
if ! command -v wrk >/dev/null 2>&1; then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get install -y -q --no-install-recommends wrk
fi
if [[ ! -x "$binary" ]]; then
  cmake --preset release && cmake --build --preset release --target attune
fi
binary=$(realpath "$binary")

work=$(mktemp -d /tmp/attune-load.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

free_port() { python3 scripts/free_port.py; }
wait_for() {  # wait_for SECONDS COMMAND...
  local limit=$1; shift
  for ((i = 0; i < limit * 10; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "load-test: timed out waiting for: $*" >&2
  return 1
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

sim_port=$(free_port); prom_port=$(free_port); metrics_port=$(free_port); webhook_port=$(free_port)

echo "load-test: attune sim serve on 127.0.0.1:$sim_port (work dir $work)"
"$binary" sim serve --plain-http --listen "127.0.0.1:$sim_port" --kubeconfig-out "$work/kubeconfig" \
  --speed 60 >"$work/sim.log" 2>&1 &
pids+=($!)
wait_for 60 test -s "$work/kubeconfig"
export KUBECONFIG="$work/kubeconfig"

cat >"$work/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: sim
    static_configs: [{targets: ["127.0.0.1:$sim_port"]}]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
pids+=($!)
wait_for 60 curl -sf "http://127.0.0.1:$prom_port/-/ready"

printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: attune-system}\n' | kubectl apply -f - >/dev/null
"$binary" controller --prometheus-url "http://127.0.0.1:$prom_port" \
  --metrics-address "127.0.0.1:$metrics_port" --leader-election-namespace attune-system \
  --reconcile-interval 5s --scrape-interval 1s --throttle-window 30s \
  --webhook-address "127.0.0.1:$webhook_port" --webhook-namespace attune-system \
  --webhook-cert-extra-name 127.0.0.1 >"$work/controller.log" 2>&1 &
controller=$!
pids+=("$controller")
wait_for 60 curl -sf "http://127.0.0.1:$metrics_port/readyz"
wait_for 60 curl -sk -o /dev/null "https://127.0.0.1:$webhook_port/"

# The demo's Auto policy for the data workers, with windows short enough for sizing to be
# published within a minute of wall time (as in the end-to-end tests).
kubectl apply -f - >/dev/null <<'EOF'
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: data-workers, namespace: data}
spec:
  targetRef:
    kind: Deployment
    selector: {matchLabels: {app.kubernetes.io/component: worker}}
  metricsSource: {historyWindow: 10m, queryStep: 10s, rateWindow: 30s, minimumDataPoints: 6}
  memory: {allowDecrease: false, controlledValues: RequestsAndLimits}
  updateStrategy: {type: Auto}
EOF

# The AdmissionReview of a real pod of the demo's Auto policy (data-workers), as the API server
# sends it on CREATE.
kubectl get pods -n data -o json >"$work/pods.json"
python3 - "$work/pods.json" "$work/review.json" <<'EOF'
import json, sys
pods = json.load(open(sys.argv[1]))["items"]
pod = next(p for p in pods if p["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "worker")
for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
    pod["metadata"].pop(key, None)
pod.pop("status", None)
review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
    "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
    "kind": {"group": "", "version": "v1", "kind": "Pod"},
    "resource": {"group": "", "version": "v1", "resource": "pods"},
    "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
    "requestResource": {"group": "", "version": "v1", "resource": "pods"},
    "namespace": pod["metadata"]["namespace"], "operation": "CREATE",
    "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller"},
    "object": pod, "oldObject": None, "dryRun": False,
    "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}}}
json.dump(review, open(sys.argv[2], "w"))
EOF
cat >"$work/review.lua" <<EOF
local f = io.open("$work/review.json", "rb")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
EOF
# Wait (bounded) for the first pass to publish sizing, so the webhook answers with a patch.
for ((i = 0; i < 120; i++)); do
  if curl -sk -X POST -H 'Content-Type: application/json' --data-binary "@$work/review.json" \
    "https://127.0.0.1:$webhook_port/mutate-pods" | grep '"patch"' > /dev/null; then break; fi
  sleep 1
done
if curl -sk -X POST -H 'Content-Type: application/json' --data-binary "@$work/review.json" \
  "https://127.0.0.1:$webhook_port/mutate-pods" | grep '"patch"' > /dev/null; then
  echo "load-test: the webhook answers the review with a JSON Patch"
else
  echo "load-test: the webhook admits the review unchanged (no sizing published yet)"
fi

timeout_seconds=$(awk '/timeoutSeconds:/ {print $2; exit}' deploy/base/09-mutatingwebhookconfiguration.yaml)
status=0
report() {  # report NAME URL [LUA]
  local name=$1 url=$2 lua=${3:-}
  local args=(-t "$threads" -c "$connections" --timeout 10s --latency)
  [[ -n "$lua" ]] && args+=(-s "$lua")
  wrk "${args[@]}" -d 10s "$url" >"$work/$name-warmup.txt"  # warm-up: threads, buffers, caches
  # Two measured runs: a leak grows RSS run after run, a steady server does not.
  local before middle after
  before=$(rss_kib "$controller")
  wrk "${args[@]}" -d "${duration}s" "$url" >"$work/$name-1.txt"
  middle=$(rss_kib "$controller")
  wrk "${args[@]}" -d "${duration}s" "$url" >"$work/$name.txt"
  after=$(rss_kib "$controller")
  python3 - "$work/$name.txt" "$name" "$before" "$middle" "$after" "$timeout_seconds" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
name = sys.argv[2]
before, middle, after = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
limit = float(sys.argv[6])
def seconds(v, unit):
    return float(v) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[unit]
lat = {p: seconds(v, u) for p, v, u in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)}
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
total = int(re.search(r"(\d+) requests in", text).group(1))
errors = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", text))
non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errors += int(non2xx.group(1)) if non2xx else 0
growth = (after - middle) / middle * 100
print(f"{name:8s} {total:9d} requests  {rps:9.0f} req/s  p50 {lat['50']*1e3:7.2f} ms  "
      f"p99 {lat['99']*1e3:7.2f} ms  errors {errors}  RSS {before/1024:.1f} -> {middle/1024:.1f} "
      f"-> {after/1024:.1f} MiB (second run {growth:+.1f} %)")
if name == "webhook":
    ok = lat["99"] < limit and errors == 0 and growth < 2
    print(f"webhook: p99 {'<' if lat['99'] < limit else '>='} timeoutSeconds {limit:g} s, "
          f"{errors} errors, RSS over the second run {growth:+.1f} % -> {'PASS' if ok else 'FAIL'}")
    sys.exit(0 if ok else 1)
EOF
}
echo "load-test: $connections connections, ${duration} s per endpoint, wrk -t $threads"
report webhook "https://127.0.0.1:$webhook_port/mutate-pods" "$work/review.lua" || status=1
report metrics "http://127.0.0.1:$metrics_port/metrics" || status=1
echo "load-test: wrk output and logs in $work"
exit $status
