"""The indefinite article by sound: "a" before a consonant sound, "an" before a vowel sound.

English chooses the article by how the next word is pronounced, not by its first letter
("an hour", "a university", "a one-day course", "an MRI"). This module encodes the usual
rules and their regular exceptions so that the integrity checks can report a slip such
as "a optics enthusiast" in a realization or a query. It is pure and has no word lists
beyond the exceptions themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache


class Article(str, Enum):
    """An English indefinite article."""

    A = "a"
    AN = "an"


# Words spelled with a silent h: the sound starts with the vowel.
_SILENT_H = re.compile(r"^(?:hour|honest|hono(?:u)?r|heir)")
# Words where usage is divided ("a historic" / "an historic", US "an herb"): never a slip.
_EITHER = re.compile(r"^(?:herb|histor|homage|hotel)")
# A vowel letter read with a consonant sound: /juː/ (university, European, ewe) or /w/ (one, once).
_YOO_OR_W = re.compile(r"^(?:eu|ewe|one(?:$|[-\s])|once(?:$|[-\s])|oneself$|ouija|uvul|ukrain)")
# A negating "un-" is a vowel sound even where "uni-" is usually /juː/ (unimportant, uninformed, unidentified).
_NEGATING_UN = re.compile(r"^uni(?:m|n|dent)")
# Words in "u" + one consonant + vowel that are nevertheless read with /ʌ/ or /uː/.
_U_VOWEL = re.compile(r"^(?:udon|umami|uber|ubuntu|upon|ufa)")
# Acronyms read as words rather than letter by letter.
_WORD_ACRONYM = re.compile(r"^[^AEIOU]?[AEIOU][^AEIOU]+[AEIOU]")
# Letters whose spoken name starts with a vowel sound: A, E, F, H, I, L, M, N, O, R, S, X.
_VOWEL_LETTER_NAMES = frozenset("aefhilmnorsx")


def _is_initialism(token: str) -> bool:
    """True when the token is read letter by letter (MRI, FBI, HTML, MSc, MPhil), not as a word (NASA)."""
    letters = re.sub(r"[^A-Za-z]", "", token)
    if len(letters) < 2 or not (letters[0].isupper() and letters[1].isupper()):
        return False
    if letters.isupper():
        return not (len(letters) >= 4 and _WORD_ACRONYM.match(letters))
    return len(letters) <= 5


def _number_article(digits: str) -> Article:
    # Spoken forms starting with a vowel: eight…, eleven, eighteen (and 11/18 hundred or thousand).
    if digits[0] == "8":
        return Article.AN
    if len(digits) in (2, 4, 5) and digits[:2] in ("11", "18"):
        return Article.AN
    return Article.A


@lru_cache(maxsize=65536)  # pure; a dataset's texts repeat a few thousand words
def article_for(word: str) -> Article | None:
    """The indefinite article the word takes, by its sound.

    Args:
        word: The word (or token such as ``one-day``, ``X-ray``, ``MRI``, ``1980s``) that follows the article.

    Returns:
        :attr:`Article.A` or :attr:`Article.AN`; None when usage is divided ("a/an historic") or the
        token does not start with a letter or digit, so that no choice can be called a slip.
    """
    token = word.strip("\"'‘’“”()[]")
    if not token:
        return None
    if token[0].isdigit():
        digits = re.match(r"[\d,]+", token)
        return _number_article(digits.group(0).replace(",", "")) if digits else None
    if not token[0].isalpha():
        return None
    head = re.split(r"[-/–]", token, maxsplit=1)[0] or token
    if len(head) == 1:
        return Article.AN if head.lower() in _VOWEL_LETTER_NAMES else Article.A
    if _is_initialism(head):
        return Article.AN if head[0].lower() in _VOWEL_LETTER_NAMES else Article.A
    lower = token.lower()
    if head.isupper():
        # An acronym read as a word (NASA, IKEA, UNESCO): a leading U is /juː/.
        return Article.AN if lower[0] in "aeio" else Article.A
    if _EITHER.match(lower):
        return None
    if _SILENT_H.match(lower):
        return Article.AN
    if _YOO_OR_W.match(lower):
        return Article.A
    first = lower[0]
    if first == "u":
        if _NEGATING_UN.match(lower) or _U_VOWEL.match(lower):
            return Article.AN
        if lower.startswith("un"):
            # "uni-" (university, unique, union) is /juː/; other "un-" words (uncle, unusual) are /ʌ/.
            return Article.A if lower.startswith("uni") or lower.startswith("unanim") else Article.AN
        if lower.startswith("ur"):
            # /jʊər/ before a vowel (urine, Uruguay), /ɜː/ before a consonant (urban, urgent).
            return Article.A if len(lower) > 2 and lower[2] in "aeiou" else Article.AN
        # "u" + one consonant + vowel is /juː/ (use, usual, utility, Utah, ukulele); a cluster is /ʌ/ (ugly, utter).
        if len(lower) > 2 and lower[1] not in "aeiouy" and lower[2] in "aeiou":
            return Article.A
        return Article.AN
    return Article.AN if first in "aeio" else Article.A


@dataclass(frozen=True)
class ArticleSlip:
    """An article that does not match the sound of the next word."""

    offset: int
    """Character offset of the article in the text."""
    found: str
    """The article as written (``a``, ``An``)."""
    word: str
    """The word that follows it."""
    expected: Article
    """The article the word takes."""

    @property
    def phrase(self) -> str:
        """The slip as written, e.g. ``a optics``."""
        return f"{self.found} {self.word}"

    @property
    def correction(self) -> str:
        """The phrase with the right article, keeping the capital of a sentence-initial one."""
        article = self.expected.value
        return f"{article.capitalize() if self.found[0].isupper() else article} {self.word}"


_ARTICLE = re.compile(r"(?<![\w'’-])(a|an|A|An)\s+([\"'‘“(]*[A-Za-z0-9][\w'’.-]*)")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s*|\n\s*)[\"'‘“(\s]*$")


def article_slips(text: str) -> list[ArticleSlip]:
    """Every "a"/"an" in ``text`` whose choice does not match the next word's sound.

    A capital "A"/"An" counts as an article only at the start of a sentence (mid-sentence it is
    usually a letter: "vitamin A", "plan A").
    """
    slips = []
    for m in _ARTICLE.finditer(text):
        found, word = m.group(1), m.group(2).rstrip(".")
        if found[0].isupper() and not _SENTENCE_START.search(text[:m.start()]):
            continue
        expected = article_for(word)
        if expected is not None and expected.value != found.lower():
            slips.append(ArticleSlip(offset=m.start(), found=found, word=word, expected=expected))
    return slips
