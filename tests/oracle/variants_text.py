"""The text group's cases and the data they run on (oracle_text.py compares them).

A row is (id, class, keyword arguments, adapt data, inputs). Adapt data is one of
  "texts"       300 fortunes and the edge texts, as a list of strings;
  "few_texts"   40 fortunes and the edge texts (for outputs as wide as the whole vocabulary);
  "lines"       the first line of each of the 300 and the edge texts without line ends: Keras keeps
                a vocabulary one token a line, so a token with a line end in it (a character
                split's "\n", split=None's whole texts) breaks Keras's own file;
  "tokens"      the words of those 300 fortunes, as they stand (case and punctuation kept), 2-D;
  "few_tokens"  the words of the 40;
  "tokens_empty"  100 words with "" five times among them (without a mask token "" is a token like
                any); "tokens_one_empty" with "" once, which puts it last in the vocabulary, where
                Keras's own file loses it (the file's last line is empty);
  "ints"        character codes of the 300 fortunes' letters, 2-D;
  None          no adapt (a vocabulary in the keyword arguments, or no vocabulary at all).
Inputs are one of
  "texts"       20 other fortunes and the edge texts, (n, 1) strings; "texts_rank1" the same as (n,);
  "lines"       (n, 1) lines the "lines" adapt set holds, and some it does not;
  "tokens"      (n, 6) words of those texts and of the edge texts, OOV ones and "" included;
  "tokens_col"  (n, 1) of the same words; "known_tokens" (n, 6) words the vocabulary holds;
  "ids"         (n, 6) int64 indices from 0 to two past the vocabulary (invert=True);
  "ints", "ints_col"  (n, 6) and (n, 1) int64 character codes, unseen ones and 0 included;
  "pair", "pair_int", "pair_rank1"  two inputs for HashedCrossing: strings and strings as (n, 1),
                strings and int64 as (n, 1), strings and strings as (n,).
Each case keeps its data small: the fortunes are short ones, and an output as wide as the
vocabulary (multi_hot, count, tf_idf) gets max_tokens or the 40-fortune adapt set.
"""
import os

FORTUNE_DIR = "/usr/share/games/fortunes"
ADAPT_COLLECTIONS = ("fortunes", "computers", "science")  # fortunes-min's and fortunes' own
PER_COLLECTION = 100  # adapt texts from each collection
INPUTS_PER_COLLECTION = 7  # input texts (the next ones, not adapted on) from each; 20 in all
MAX_CHARS = 300  # short fortunes only: the cases stay small

# Hand-written texts at the edges of standardize and split: nothing, only punctuation, letters
# beyond ASCII (TensorFlow lowercases ASCII only), runs of spaces, tabs and line ends, mixed case,
# scripts without case, and a character outside the Basic Multilingual Plane.
EDGE_TEXTS = [
    "",
    "?!...;:--()",
    "Grüße aus Köln",
    "  repeated   spaces    between  words ",
    "tabs\tand\nnewlines\r\nand\t\ttabs",
    "MiXeD CaSe, mixed case and MIXED CASE",
    "Ünïcödé ÀÉÎ straße ŒUVRE",
    "日本語 テキスト 🦆 duck",
    "First line.<br />Second line, with commas,<br /> and a third",
]
EDGE_TOKENS = ["", "[UNK]", "Köln", "grüße", "the", "The", "THE", "🦆", "?!", "zzyzx"]

TV, SL, IL, H, HC = "TextVectorization", "StringLookup", "IntegerLookup", "Hashing", "HashedCrossing"

VARIANTS = [
    # TextVectorization, output_mode int: every standardize and split, ngrams, sequence lengths
    ("tv_default", TV, {}, "texts", "texts"),
    ("tv_seq8", TV, {"output_sequence_length": 8}, "texts", "texts"),
    ("tv_max12", TV, {"max_tokens": 12, "output_sequence_length": 10}, "texts", "texts"),
    ("tv_lower", TV, {"standardize": "lower", "max_tokens": 400, "output_sequence_length": 12}, "texts", "texts"),
    ("tv_strip", TV, {"standardize": "strip_punctuation", "max_tokens": 400}, "texts", "texts"),
    ("tv_nostd", TV, {"standardize": None, "max_tokens": 400, "output_sequence_length": 16}, "texts", "texts"),
    ("tv_char", TV, {"split": "character", "max_tokens": 40, "output_sequence_length": 60}, "texts", "texts"),
    ("tv_char_nostd", TV, {"split": "character", "standardize": None}, "lines", "texts"),
    ("tv_char_ngrams2", TV, {"split": "character", "ngrams": 2, "max_tokens": 120,
                             "output_sequence_length": 40}, "lines", "texts"),
    ("tv_split_none", TV, {"split": None, "standardize": "lower"}, "lines", "lines"),
    ("tv_split_none_multi_hot", TV, {"split": None, "output_mode": "multi_hot", "max_tokens": 30}, "lines",
     "lines"),
    ("tv_split_none_seq", TV, {"split": None, "output_sequence_length": 3}, "texts", "texts"),
    ("tv_ngrams2", TV, {"ngrams": 2, "max_tokens": 500}, "texts", "texts"),
    ("tv_ngrams3", TV, {"ngrams": 3, "max_tokens": 300, "output_sequence_length": 10}, "texts", "texts"),
    ("tv_ngrams3_nostd", TV, {"ngrams": 3, "standardize": None, "output_sequence_length": 20}, "few_texts",
     "texts"),
    # Functions as standardize and split (Keras's callables, registered under "kiln_oracle>..."):
    # keras.io's custom_standardization, and a split on commas ("@" names oracle_text.FUNCTIONS).
    ("tv_fn_standardize", TV, {"standardize": "@custom_standardization", "max_tokens": 300,
                               "output_sequence_length": 12}, "texts", "texts"),
    ("tv_fn_split", TV, {"standardize": "lower", "split": "@split_on_commas", "output_mode": "multi_hot",
                         "max_tokens": 40}, "lines", "lines"),
    ("tv_rank1", TV, {"max_tokens": 200, "output_sequence_length": 6}, "texts", "texts_rank1"),
    # TextVectorization, the encodings
    ("tv_multi_hot", TV, {"output_mode": "multi_hot", "max_tokens": 50}, "texts", "texts"),
    ("tv_multi_hot_full", TV, {"output_mode": "multi_hot"}, "few_texts", "texts"),
    ("tv_multi_hot_pad", TV, {"output_mode": "multi_hot", "max_tokens": 400, "pad_to_max_tokens": True},
     "few_texts", "texts"),
    ("tv_multi_hot_ngrams", TV, {"output_mode": "multi_hot", "ngrams": 2, "max_tokens": 60}, "texts", "texts"),
    ("tv_count", TV, {"output_mode": "count", "max_tokens": 50}, "texts", "texts"),
    ("tv_count_char", TV, {"output_mode": "count", "split": "character", "standardize": None,
                           "max_tokens": 30}, "lines", "texts"),
    ("tv_count_ngrams", TV, {"output_mode": "count", "ngrams": 2, "max_tokens": 80}, "texts", "texts"),
    ("tv_tf_idf", TV, {"output_mode": "tf_idf", "max_tokens": 50}, "texts", "texts"),
    ("tv_tf_idf_full", TV, {"output_mode": "tf_idf"}, "few_texts", "texts"),
    ("tv_tf_idf_pad", TV, {"output_mode": "tf_idf", "max_tokens": 500, "pad_to_max_tokens": True}, "few_texts",
     "texts"),
    ("tv_tf_idf_lower_ngrams", TV, {"output_mode": "tf_idf", "standardize": "lower", "ngrams": 3,
                                    "max_tokens": 40}, "texts", "texts"),
    # TextVectorization with a vocabulary given in the config
    ("tv_vocab", TV, {"vocabulary": ["the", "a", "of", "to", "is", "köln", "grüße", "computer", "you"],
                      "output_sequence_length": 7}, None, "texts"),
    ("tv_vocab_multi_hot", TV, {"output_mode": "multi_hot", "vocabulary": ["the", "a", "of", "and", "duck"]},
     None, "texts"),
    ("tv_vocab_tf_idf", TV, {"output_mode": "tf_idf", "vocabulary": ["the", "a", "of", "and", "you"],
                             "idf_weights": [0.25, 0.5, 0.75, 1.5, 2.0]}, None, "texts"),
    # StringLookup
    ("sl_default", SL, {}, "tokens", "tokens"),
    ("sl_max10", SL, {"max_tokens": 10}, "tokens", "tokens"),
    ("sl_oov0", SL, {"num_oov_indices": 0}, "tokens", "known_tokens"),
    ("sl_oov3", SL, {"num_oov_indices": 3}, "tokens", "tokens"),
    ("sl_oov2_salt", SL, {"num_oov_indices": 2, "salt": 42}, "tokens", "tokens"),
    ("sl_mask", SL, {"mask_token": ""}, "tokens", "tokens"),
    ("sl_empty_token", SL, {}, "tokens_empty", "tokens"),
    ("sl_empty_token_last", SL, {}, "tokens_one_empty", "tokens"),
    ("sl_empty_token_mask", SL, {"mask_token": ""}, "tokens_empty", "tokens"),
    ("sl_mask_oov_token", SL, {"mask_token": "[MASK]", "oov_token": "<unk>", "num_oov_indices": 2}, "tokens",
     "tokens"),
    ("sl_invert", SL, {"invert": True}, "tokens", "ids"),
    ("sl_invert_mask", SL, {"invert": True, "mask_token": "[M]", "num_oov_indices": 2, "oov_token": "?"},
     "tokens", "ids"),
    ("sl_one_hot", SL, {"output_mode": "one_hot", "max_tokens": 20}, "tokens", "tokens_col"),
    ("sl_multi_hot", SL, {"output_mode": "multi_hot", "max_tokens": 30}, "tokens", "tokens"),
    ("sl_count_mask", SL, {"output_mode": "count", "max_tokens": 30, "mask_token": ""}, "tokens", "tokens"),
    ("sl_tf_idf", SL, {"output_mode": "tf_idf", "max_tokens": 30}, "tokens", "tokens"),
    ("sl_multi_hot_pad", SL, {"output_mode": "multi_hot", "max_tokens": 400, "pad_to_max_tokens": True},
     "few_tokens", "tokens"),
    ("sl_vocab", SL, {"vocabulary": ["the", "a", "The", "Köln", "🦆", "of"]}, None, "tokens"),
    ("sl_vocab_tf_idf", SL, {"output_mode": "tf_idf", "vocabulary": ["the", "a", "The", "of"],
                             "idf_weights": [0.5, 1.25, 2.0, 0.75]}, None, "tokens"),
    # IntegerLookup
    ("il_default", IL, {}, "ints", "ints"),
    ("il_mask0", IL, {"mask_token": 0, "max_tokens": 25}, "ints", "ints"),
    ("il_multi_hot", IL, {"output_mode": "multi_hot", "max_tokens": 20}, "ints", "ints"),
    ("il_tf_idf", IL, {"output_mode": "tf_idf", "max_tokens": 20}, "ints", "ints"),
    ("il_invert", IL, {"invert": True}, "ints", "ids"),
    ("il_vocab_oov2", IL, {"vocabulary": [101, 32, 116, 97, 252], "num_oov_indices": 2}, None, "ints"),
    ("il_one_hot", IL, {"output_mode": "one_hot", "vocabulary": [101, 116, 97, 111]}, None, "ints_col"),
    # Hashing on strings
    ("hash_int", H, {"num_bins": 16}, None, "tokens"),
    ("hash_mask", H, {"num_bins": 8, "mask_value": ""}, None, "tokens"),
    ("hash_salt_int", H, {"num_bins": 10, "salt": 133}, None, "tokens"),
    ("hash_salt_pair", H, {"num_bins": 10, "salt": [7, 11]}, None, "tokens"),
    ("hash_one_hot", H, {"num_bins": 6, "output_mode": "one_hot"}, None, "tokens_col"),
    ("hash_multi_hot", H, {"num_bins": 12, "output_mode": "multi_hot"}, None, "tokens"),
    ("hash_count_mask", H, {"num_bins": 12, "output_mode": "count", "mask_value": "the"}, None, "tokens"),
    # HashedCrossing
    ("hc_strings", HC, {"num_bins": 32}, None, "pair"),
    ("hc_string_int", HC, {"num_bins": 20}, None, "pair_int"),
    ("hc_one_hot", HC, {"num_bins": 9, "output_mode": "one_hot"}, None, "pair"),
    ("hc_rank1", HC, {"num_bins": 15}, None, "pair_rank1"),
]


def read_collection(name):
    """A fortune collection's entries: the texts between lines that hold only "%"."""
    with open(os.path.join(FORTUNE_DIR, name), encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    entries, cur = [], []
    for line in lines:
        if line == "%":
            entries.append("\n".join(cur))
            cur = []
        else:
            cur.append(line)
    if any(cur):
        entries.append("\n".join(cur))
    return [e for e in entries if 0 < len(e) <= MAX_CHARS]


def grid(values, width, rows=None):
    """Rows of `width` values (the tail that does not fill a row dropped): a rectangular 2-D list."""
    n = len(values) // width if rows is None else rows
    return [list(values[i * width:(i + 1) * width]) for i in range(n)]


class Data:
    """The group's data, made once from the fortunes (None when the collections are missing)."""

    def __init__(self):
        adapt, inputs = [], []
        for name in ADAPT_COLLECTIONS:
            entries = read_collection(name)
            adapt += entries[:PER_COLLECTION]
            inputs += entries[PER_COLLECTION:PER_COLLECTION + INPUTS_PER_COLLECTION]
        inputs = inputs[:20]
        self.texts = adapt + EDGE_TEXTS
        self.few_texts = adapt[:40:3] + adapt[1:40:3] + adapt[2:40:3] + EDGE_TEXTS  # the three collections mixed
        self.input_texts = inputs + EDGE_TEXTS
        one_line = [t for t in EDGE_TEXTS if "\n" not in t and "\r" not in t]
        self.lines = [t.split("\n")[0] for t in adapt] + one_line
        self.input_lines = self.lines[::23] + [t.split("\n")[0] for t in inputs] + one_line
        words = [w for t in adapt for w in t.split()]
        edge = [w for w in EDGE_TOKENS if w]  # "" only where the case says so (tokens_empty)
        self.tokens = grid(words[:1200] + edge, 10)
        self.tokens_empty = grid(words[:86] + ["", "", ""] + edge + ["", ""], 10)
        self.tokens_one_empty = grid(words[:90] + [""] + edge, 10)
        few = [w for t in self.few_texts for w in t.split()]
        self.few_tokens = grid(few[:300] + edge, 10)
        probe = [w for t in self.input_texts for w in t.split()]
        self.input_tokens = grid(EDGE_TOKENS + probe[::3], 6, rows=14)
        self.ints = grid([ord(c) for t in adapt for c in t if c.isalpha()][:1000], 10)
        codes = [0, 252, 128518, 7] + [ord(c) for t in self.input_texts for c in t if not c.isspace()][::5]
        self.input_ints = grid(codes, 6, rows=10)

    def adapt(self, kind):
        return {"texts": self.texts, "few_texts": self.few_texts, "lines": self.lines, "tokens": self.tokens,
                "tokens_empty": self.tokens_empty, "tokens_one_empty": self.tokens_one_empty, "few_tokens": self.few_tokens, "ints": self.ints}[kind]

    def inputs(self, kind, vocabulary_size, vocabulary):
        """The case's call inputs, a list (one nested list per input)."""
        if kind == "texts":
            return [[[t] for t in self.input_texts]]
        if kind == "lines":
            return [[[t] for t in self.input_lines]]
        if kind == "texts_rank1":
            return [list(self.input_texts)]
        if kind == "tokens":
            return [self.input_tokens]
        if kind == "tokens_col":
            return [[[w] for w in sum(self.input_tokens, [])[:24]]]
        if kind == "known_tokens":
            known = [w for w in sum(self.input_tokens, []) if w in set(vocabulary)]
            return [grid((known * 6)[:36], 6)]
        if kind == "ids":
            span = vocabulary_size + 2
            return [grid([(7 * i) % (span + 1) for i in range(6 * 8)], 6)]
        if kind == "ints":
            return [self.input_ints]
        if kind == "ints_col":
            return [[[v] for v in sum(self.input_ints, [])[:20]]]
        words = sum(self.input_tokens, [])[:16]
        if kind == "pair":
            return [[[w] for w in words], [[w] for w in reversed(words)]]
        if kind == "pair_int":
            return [[[w] for w in words], [[v] for v in sum(self.input_ints, [])[:16]]]
        if kind == "pair_rank1":
            return [words, list(reversed(words))]
        raise ValueError(kind)
