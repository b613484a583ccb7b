#!/bin/bash
# Time for a 10,000-replica Deployment to become fully Running (readyReplicas) on 500 simulated nodes.
set -e
BERTH=${BERTH:-build/berth}
PORT=${PORT:-18081}
DIR=$(mktemp -d)
$BERTH serve --data-dir $DIR/data --listen 127.0.0.1:$PORT --sim-nodes 500 > $DIR/serve.log 2>&1 &
PID=$!
trap "kill $PID; wait $PID 2>/dev/null; rm -rf $DIR" EXIT
for i in $(seq 100); do curl -sf http://127.0.0.1:$PORT/healthz >/dev/null && break; sleep 0.1; done
K="kubectl -s http://127.0.0.1:$PORT"
$K create deployment big --image=nginx --replicas=10000 --dry-run=client -o json > $DIR/big.json
start=$(date +%s.%N)
$K apply -f $DIR/big.json >/dev/null
while true; do
  r=$(curl -s http://127.0.0.1:$PORT/apis/apps/v1/namespaces/default/deployments/big | python3 -c "import json,sys; print(json.load(sys.stdin).get('status',{}).get('readyReplicas',0))")
  [ "$r" = "10000" ] && break
  sleep 0.1
done
end=$(date +%s.%N)
echo "10000 replicas Running on 500 simulated nodes: $(echo "$end - $start" | bc) s; peak RSS $(grep VmHWM /proc/$PID/status | awk '{print $2/1024}') MiB"
