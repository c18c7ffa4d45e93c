"""Tiny text statistics: word counts and the most common words."""
import sys
from collections import Counter


def words(text):
    """The words of a text, lower-cased, without surrounding punctuation."""
    return [w.strip(".,;:!?()\"'").lower() for w in text.split(" ") if w.strip(".,;:!?()\"'")]


def word_count(text):
    return len(words(text))


def top_words(text, n=3):
    """The n most common words, most common first."""
    return [word for word, _ in Counter(words(text)).most_common(n)]


if __name__ == "__main__":
    text = open(sys.argv[1]).read()
    print(f"{word_count(text)} words; most common: {', '.join(top_words(text))}")
