#!/usr/bin/env bash
# Checks that docs/plan-format.md names every YAML key the loaders read.
#
# The keys are the string literals passed to the YamlMap getters and child()/has() in core/, the
# engines (sim/, analytic/, exec/) and explore/ (get_string("name"), child("device"),
# has("stragglers"), ...), the keys read through the loaders' helpers (read_link(m, "nic"),
# read_kind(m, "better"), check_agrees(w, "parameters"), resolve_part(m, "cluster"),
# node()["key"]), the strategy settings of the knob table in core/plan/strategy_settings.cpp (read
# through a variable) and the strategy kinds, which are also the names of a strategy's sections.
# Each must appear in the doc as `key` (in backquotes).
# Exits 1 and prints each key missing from the doc; prints "N fields, all documented" otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

doc=docs/plan-format.md
[ -f "$doc" ] || { echo "missing $doc" >&2; exit 1; }

# Keys that the loaders read but users never write. None today; add one only with the reason.
#   key    # why it is not user-facing
excluded=(
)

sources=$(find core sim analytic exec explore \( -name '*.cpp' -o -name '*.hpp' \) -print | sort)

keys() {
  # shellcheck disable=SC2086  # the source list is word-split on purpose (no spaces in names)
  {
    grep -ohE '\b(get_[a-z_]+|child|has)\("[A-Za-z0-9_]+"' $sources || true
    grep -ohE '\b(read_link|read_kind|check_agrees|resolve_part|read_elements_rate|given_child)\([A-Za-z_.]+, "[A-Za-z0-9_]+"' \
      $sources || true
    grep -ohE 'node\(\)\["[A-Za-z0-9_]+"\]' $sources || true
    # The strategy settings: the knob table's entries ({"chunk", ...}).
    sed -n '/knob_table() {/,/return table;/p' core/plan/strategy_settings.cpp |
      grep -oE '\{"[A-Za-z0-9_]+",' || true
    # The strategy kinds: `kind` values and the names of the sections beside it.
    sed -n '/strategy_names() {/,/return names;/p' core/plan/plan_loader.cpp |
      grep -oE '"[A-Za-z0-9_]+"' || true
  } | grep -oE '"[A-Za-z0-9_]+"' | tr -d '"' | sort -u
}

all=$(keys)
count=$(printf '%s\n' "$all" | grep -c . || true)
if [ "$count" -lt 50 ]; then
  echo "found only $count keys in the loaders: has the source layout changed?" >&2
  exit 1
fi

missing=()
checked=0
while IFS= read -r key; do
  skip=0
  for x in "${excluded[@]+"${excluded[@]}"}"; do [ "$x" = "$key" ] && skip=1; done
  [ "$skip" = 1 ] && continue
  checked=$((checked + 1))
  grep -qF "\`$key\`" "$doc" || missing+=("$key")
done <<<"$all"

if [ "${#missing[@]}" -gt 0 ]; then
  echo "$doc does not document ${#missing[@]} of $checked fields (write each as \`key\`):" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi
echo "$checked fields, all documented"
