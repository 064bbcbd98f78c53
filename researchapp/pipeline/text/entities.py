"""Names in running text: the bridge entities a multi-hop question leads through.

"Grace Krilanovich's first novel was published by a house founded in 2005; where is it based?"
is answered in two hops: a passage about the novel names the house ("Two Dollar Radio"), and
that name finds the passage that says where it is based. ``name_phrases`` finds such names:
runs of capitalised words (with "of", "the", "de" ... inside), not the first word of a sentence
alone, with their spans.
"""

from __future__ import annotations

import re

from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import STOPWORDS

_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
_CONNECTORS = frozenset("of the de da di del la le von van der den du for".split())
MAX_NAME_WORDS = 6
_ARTICLES = frozenset(("the", "a", "an"))
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
_DEMONYM = re.compile(r"(?:an|ish|ese|ic|i)$")


def _capitalised(word: str) -> bool:
    return word[:1].isupper() or any(ch.isdigit() for ch in word[:1])


# Adjectives of peoples and eras (a closed class): "an American actor", "English pop singer".
DEMONYMS = frozenset(
    """american british english french german italian spanish chinese japanese korean indian russian
    canadian australian mexican brazilian dutch swedish norwegian danish finnish polish irish scottish
    welsh greek turkish israeli iraqi iranian egyptian pakistani saudi swiss austrian belgian portuguese
    argentine argentinian chilean colombian peruvian venezuelan cuban nigerian kenyan african european
    asian arab arabic armenian ukrainian czech hungarian romanian serbian croatian thai vietnamese
    filipino indonesian malaysian singaporean taiwanese mongolian scandinavian latin hispanic jewish
    soviet roman byzantine ottoman persian afghan bangladeshi nepalese tibetan hawaiian texan
    californian bavarian prussian victorian edwardian elizabethan napoleonic catholic protestant
    muslim christian islamic""".split()
)


def is_demonym(word: str, *, before: str = "", after: str = "") -> bool:
    """ "an American actor", "English pop singer": a capitalised adjective of a people before a
    lower-case word, not a name. ``before`` is the word just before (no punctuation between), and
    a name goes on after a capitalised word ("Vic Darchinyan", "Bob Dylan and")."""
    return word.lower() in DEMONYMS and after[:1].islower() and not before[:1].isupper()


def _names_something(run: list[re.Match[str]]) -> bool:
    """Not a date or a number ("2 June 1961"), nor a lone demonym ("American"), nor stopwords."""
    words = [match.group() for match in run]
    if all(word.lower() in STOPWORDS or word.lower() in _MONTHS or word.isdigit() for word in words):
        return False
    if any(word.lower() in _MONTHS for word in words) and any(word.isdigit() for word in words):
        return False
    return not (len(words) == 1 and _DEMONYM.search(words[0]))


def name_phrases(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of each run of capitalised words in ``text``, in order."""
    found: list[tuple[str, int, int]] = []
    for sentence_start, sentence_end in split_sentences(text):
        words = list(_WORD.finditer(text, sentence_start, sentence_end))
        run: list[re.Match[str]] = []
        for position, match in enumerate([*words, None]):
            word = match.group() if match else ""
            joins = bool(run) and word.lower() in _CONNECTORS
            # A comma or a bracket between two words ends a name: "Oahu, Honolulu" is two.
            adjacent = not run or (match is not None and not text[run[-1].end() : match.start()].strip())
            if match and adjacent and (_capitalised(word) or joins) and len(run) < MAX_NAME_WORDS:
                run.append(match)
                continue
            while run and run[-1].group().lower() in _CONNECTORS:
                run.pop()
            while len(run) > 1 and run[0].group().lower() in _ARTICLES:
                run.pop(0)
            # A sentence's first word alone is capitalised by grammar, not because it is a name.
            first_alone = len(run) == 1 and run[0] is words[0]
            if run and not first_alone and _names_something(run):
                found.append((text[run[0].start() : run[-1].end()], run[0].start(), run[-1].end()))
            run = [match] if match and _capitalised(word) and position else []
    return found
