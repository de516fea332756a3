#!/usr/bin/env bash
# Attune's alerts (deploy/components/monitoring/prometheusrule.yaml) with the real promtool: the
# PrometheusRule's spec is extracted as a rule file, `promtool check rules` checks it whole
# (expressions and annotation templates), and `promtool test rules` runs alerts_test.yaml
# against it without the annotations (the tests are about when each alert fires; the texts are
# checked by `check rules`). Exit 77 (skipped) when promtool is missing.
#   alerts_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
if ! command -v promtool >/dev/null 2>&1; then
  echo "SKIPPED: promtool is not installed (bash scripts/setup.sh installs prometheus)"
  exit 77
fi
work=$(mktemp -d /tmp/attune-alerts-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

rule=$source_dir/deploy/components/monitoring/prometheusrule.yaml
# spec.groups, dedented by the two spaces of `spec:`'s children.
awk 'found { sub(/^  /, ""); print } /^spec:/ { found = 1 }' "$rule" >"$work/attune.rules.yaml"
promtool check rules "$work/attune.rules.yaml"
# The same rules without their annotations blocks.
awk '
  { match($0, /^ */); indent = RLENGTH }
  skipping && indent > skip_indent { next }
  { skipping = 0 }
  /^ *annotations:/ { skipping = 1; skip_indent = indent; next }
  { print }
' "$work/attune.rules.yaml" >"$work/attune.rules.test.yaml"
cp "$source_dir/tests/integration/monitoring/alerts_test.yaml" "$work/"
promtool test rules "$work/alerts_test.yaml"
echo "1 passed, 0 failed"
