import unittest

from textstats import top_words, word_count


class TextStatsTest(unittest.TestCase):
    def test_counts_words_on_one_line(self):
        self.assertEqual(word_count("the cat sat"), 3)

    def test_counts_words_across_lines(self):
        self.assertEqual(word_count("the cat\nsat on\nthe mat"), 6)

    def test_top_words(self):
        self.assertEqual(top_words("a b a c a b", 2), ["a", "b"])


if __name__ == "__main__":
    unittest.main()
