#!/usr/bin/env bash
# Lay out Princeton WordNet 3.0 for NLTK under "$1/corpora/wordnet" (an NLTK_DATA folder).
#
# augkit itself never needs this: augkit-eda ships its own WordNet lexicon. It is for the
# test that checks that lexicon against NLTK's WordNet reader, and for the benchmark that
# runs nlpaug (which reads WordNet through NLTK). nltk.download cannot work offline, so the
# data comes from Debian's wordnet-base package. NLTK wants real files (not links) and a
# 'lexnames' file that Debian does not ship; it is written below from WordNet's lexnames(5WN).
set -euo pipefail
dest="${1:?usage: nltk_wordnet.sh NLTK_DATA_DIR}"
target="$dest/corpora/wordnet"
[ -f "$target/lexnames" ] && [ -f "$target/data.noun" ] && exit 0

if [ ! -f /usr/share/wordnet/data.noun ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing Debian's wordnet-base (WordNet 3.0) ..." >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wordnet-base wordnet-sense-index >/dev/null
fi

mkdir -p "$target"
find /usr/share/wordnet -maxdepth 1 -type f -exec cp --dereference {} "$target/" \;
# lexnames(5WN): file number, lexicographer file name, syntactic category (1 n, 2 v, 3 a, 4 r)
names="adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute
noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group
noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession
noun.process noun.quantity noun.relation noun.shape noun.state noun.substance noun.time
verb.body verb.change verb.cognition verb.communication verb.competition verb.consumption
verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession
verb.social verb.stative verb.weather adj.ppl"
i=0
for name in $names; do
  case "$name" in noun.*) cat=1 ;; verb.*) cat=2 ;; adj.*) cat=3 ;; adv.*) cat=4 ;; esac
  printf '%02d\t%s\t%s\n' "$i" "$name" "$cat"
  i=$((i + 1))
done > "$target/lexnames"
echo "WordNet 3.0 laid out for NLTK in $target" >&2
