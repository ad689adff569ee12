#!/usr/bin/env python3
"""Writes the malformed files of tests/bad/ from the small good model and
vocabularies in tests/bad/base/. The files are committed; run this again only
to remake them (python3 tests/bad/make_bad.py). What each must make the
program say is in MANIFEST.tsv; tests/test_bad_inputs.py checks it.

Python 3 standard library only. Deterministic: the same files every run.
"""
import json
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "base", "tiny.safetensors")


def write(kind, name, data):
    os.makedirs(os.path.join(HERE, kind), exist_ok=True)
    with open(os.path.join(HERE, kind, name), "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def read_model(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    return raw, n, json.loads(raw[8:8 + n].decode("utf-8")), raw[8 + n:]


def pack(header, data, length=None):
    """header: dict, str or bytes; padded so 8 + N is a multiple of 8."""
    if isinstance(header, dict):
        header = json.dumps(header, ensure_ascii=False)
    head = header.encode("utf-8") if isinstance(header, str) else header
    head += b" " * (-(8 + len(head)) % 8)
    return struct.pack("<Q", len(head) if length is None else length) + head + data


def copy(header):
    return json.loads(json.dumps(header))


def models():
    raw, n, header, data = read_model(BASE)
    meta = header["__metadata__"]
    order = sorted((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][0])
    first, second, last = order[0], order[1], order[-1]
    m = lambda name, content: write("model", name + ".safetensors", content)

    def with_meta(**changes):
        h = copy(header)
        for k, v in changes.items():
            if v is None:
                h["__metadata__"].pop(k)
            else:
                h["__metadata__"][k] = v
        return pack(h, data)

    def with_entry(name, **changes):
        h = copy(header)
        h[name].update(changes)
        return pack(h, data)

    def poke(name, value, index=1):
        b = header[name]["data_offsets"][0] + 4 * index
        return pack(header, data[:b] + struct.pack("<f", value) + data[b + 4:])

    def repack(h, tensors):
        """h: header to keep the metadata of; tensors: [(name, entry, bytes)] laid out again."""
        out, blobs, off = {"__metadata__": h["__metadata__"]}, [], 0
        for name, entry, blob in tensors:
            out[name] = dict(entry, data_offsets=[off, off + len(blob)])
            blobs.append(blob)
            off += len(blob)
        return pack(out, b"".join(blobs))

    def tensors():
        return [(k, dict(header[k]), data[header[k]["data_offsets"][0]:header[k]["data_offsets"][1]]) for k in order]

    # the 8-byte length and the header
    m("empty", b"")
    m("three-bytes", raw[:3])
    m("length-zero", struct.pack("<Q", 0) + data)
    m("truncated-in-header", raw[:8 + n // 2])
    m("truncated-in-data", raw[:8 + n + len(data) // 2])
    m("truncated-last-byte", raw[:-1])
    m("length-past-end", struct.pack("<Q", len(raw)) + raw[8:])
    m("length-max", struct.pack("<Q", 2**64 - 1) + raw[8:])
    m("text-file", "This is not a model, it is a note to the teacher.\n")
    m("header-not-json", pack("this is not JSON at all", data))
    m("header-array", pack("[1, 2, 3]", data))
    m("header-string", pack('"model"', data))
    m("header-trailing-garbage", pack(json.dumps(header, ensure_ascii=False) + " }", data))
    m("header-invalid-utf8", pack(json.dumps(header).encode().replace(b'"tiny"', b'"ti\xffy"'), data))
    m("header-nul", pack(json.dumps(header).encode().replace(b'"tiny"', b'"ti\x00y"'), data))
    m("header-deep-nesting", pack('{"__metadata__": {}, "x": ' + "[" * 200 + "]" * 200 + "}", b""))
    nan_header = json.dumps(with_entry_header(header, first, data_offsets="@")).replace('"@"', "[NaN, 16]")
    m("header-nan-number", pack(nan_header, data))
    # tensor entries
    m("dtype-unknown", with_entry(second, dtype="Q7"))
    m("dtype-not-string", with_entry(second, dtype=32))
    m("entry-not-object", pack(dict(copy(header), **{second: [1, 2]}), data))
    t = tensors()
    t = [(k, dict(e, dtype="F16"), b[:len(b) // 2]) if k == second else (k, e, b) for k, e, b in t]
    m("dtype-f16", repack(header, t))
    m("dtype-i32", repack(header, [(k, dict(e, dtype="I32"), b) if k == second else (k, e, b) for k, e, b in tensors()]))
    rows_cols = header[first]["shape"]
    m("shape-transposed", with_entry(first, shape=list(reversed(rows_cols))))
    m("shape-nine-dims", with_entry(first, shape=[1] * 9))
    m("shape-negative", with_entry(first, shape=[-rows_cols[0], rows_cols[1]]))
    m("shape-fraction", with_entry(first, shape=[rows_cols[0] + 0.5, rows_cols[1]]))
    m("shape-not-array", with_entry(first, shape="10x4"))
    m("shape-overflow", with_entry(first, shape=[2**40, 2**40, 2**40]))
    t = tensors()
    t = [(k, dict(e, shape=[e["shape"][0] // 2] + e["shape"][1:]), b[:len(b) // 2]) if k == first else (k, e, b) for k, e, b in t]
    m("shape-wrong-for-config", repack(header, t))
    b0, e0 = header[last]["data_offsets"]
    m("offsets-past-end", with_entry(last, data_offsets=[b0 + 1000, e0 + 1000]))
    m("offsets-reversed", with_entry(first, data_offsets=list(reversed(header[first]["data_offsets"]))))
    b1, e1 = header[second]["data_offsets"]
    m("offsets-overlap", with_entry(second, data_offsets=[b1 - 4, e1 - 4]))
    m("offsets-huge", with_entry(first, data_offsets=[2**64 - 8, 2**64 - 4]))
    m("offsets-not-array", with_entry(first, data_offsets="0-16"))
    m("offsets-missing", pack({k: ({kk: vv for kk, vv in v.items() if kk != "data_offsets"} if k == first else v)
                               for k, v in header.items()}, data))
    m("trailing-bytes", raw + b"\0" * 8)
    # weights
    m("weight-nan", poke(second, float("nan")))
    m("weight-inf", poke(second, float("inf")))
    m("weight-neg-inf", poke(last, float("-inf")))
    huge = bytearray(data)
    for i in range(0, len(huge), 4):
        huge[i:i + 4] = struct.pack("<f", 3e38 if (i // 4) % 2 else -3e38)
    m("weights-huge", pack(header, bytes(huge)))
    # names: duplicated, missing
    text = json.dumps(header, ensure_ascii=False)
    dup = json.dumps({first: header[first]})[1:-1]
    m("duplicate-tensor", pack("{" + dup + ", " + text[1:], data))
    m("duplicate-metadata", pack('{"__metadata__": {}, ' + text[1:], data))
    m("duplicate-field", pack(text.replace('"dtype": "F32"', '"dtype": "F32", "dtype": "F16"', 1), data))
    m("duplicate-metadata-key", pack(text.replace('"__metadata__": {', '"__metadata__": {"nhead": "1", ', 1), data))
    m("tensor-missing", repack(header, [x for x in tensors() if x[0] != last]))
    # metadata
    m("metadata-missing", pack({k: v for k, v in header.items() if k != "__metadata__"}, data))
    m("metadata-not-object", pack(dict(copy(header), __metadata__=["d_model", "4"]), data))
    m("metadata-number", pack(dict(copy(header), __metadata__=dict(meta, d_model=4)), data))
    m("d-model-missing", with_meta(d_model=None))
    m("d-model-text", with_meta(d_model="four"))
    m("nhead-not-dividing", with_meta(nhead="3"))
    m("nhead-zero", with_meta(nhead="0"))
    m("layers-zero", with_meta(num_encoder_layers="0"))
    m("max-len-zero", with_meta(max_len="0"))
    m("eps-negative", with_meta(layer_norm_eps="-1e-5"))
    m("eps-text", with_meta(layer_norm_eps="small"))
    m("norm-first", with_meta(norm_first="true"))
    m("activation-gelu", with_meta(activation="gelu"))
    m("format-missing", with_meta(format=None))
    m("format-other", with_meta(format="gguf/3"))
    m("format-version-2", with_meta(format="transformer-tracer-model/2"))
    m("tied-not-bool", with_meta(tied_generator="yes"))
    m("tied-with-generator", with_meta(tied_generator="true"))
    m("supervised-head-out-of-range", with_meta(supervised_head="9,1"))
    m("huge-config", with_meta(d_model="65536", dim_feedforward="1048576", num_encoder_layers="4",
                               num_decoder_layers="4", nhead="1"))
    m("config-larger-than-file", with_meta(d_model="8192", dim_feedforward="8192", nhead="1"))
    # vocabularies in the metadata
    src = json.loads(meta["src_vocab"])
    m("src-vocab-missing", with_meta(src_vocab=None))
    m("tgt-vocab-not-json", with_meta(tgt_vocab='["<pad>", "<bos>", '))
    m("src-vocab-not-array", with_meta(src_vocab='{"the": 4}'))
    m("src-vocab-no-unk", with_meta(src_vocab=json.dumps([t for t in src if t != "<unk>"] + ["extra"])))
    m("src-vocab-duplicate", with_meta(src_vocab=json.dumps(src[:-1] + [src[4]])))
    m("src-vocab-space", with_meta(src_vocab=json.dumps(src[:-1] + ["the cat"])))
    m("src-vocab-short", with_meta(src_vocab=json.dumps(src[:-1])))
    # noise
    rng = random.Random(6)
    m("binary-noise", bytes(rng.randrange(256) for _ in range(4096)))
    m("noise-after-length", struct.pack("<Q", 64) + bytes(rng.randrange(256) for _ in range(200)))


def with_entry_header(header, name, **changes):
    h = copy(header)
    h[name].update(changes)
    return h


def corpora():
    c = lambda name, content: write("corpus", name + ".tsv", content)
    good = "the cat\t貓\t0-0 1-0\nthe cat sits\t貓 坐\t1-0 2-1\n"
    c("empty", "")
    c("blank-lines", "\n\n  \n\r\n")
    c("bom-only", "\ufeff")
    c("no-tab", good + "the cat sits on the mat 貓 坐 在 墊子 上\n")
    c("empty-source", good + "\t貓 坐\n")
    c("empty-target", good + "the cat\t\n")
    c("spaces-target", good + "the cat\t   \n")
    c("four-columns", good + "the cat\t貓\t0-0\textra\n")
    c("invalid-utf8", good.encode() + b"the \xff cat\t\xe8\xb2\x93\n")
    c("truncated-utf8", good.encode() + b"the cat\t\xe8\xb2\n")
    c("overlong-utf8", good.encode() + b"the \xc0\xaf cat\t\xe8\xb2\x93\n")
    c("surrogate", good.encode() + b"the \xed\xa0\x80 cat\t\xe8\xb2\x93\n")
    c("control-char", good + "the \x01cat\t貓\n")
    c("escape-sequence", good + "\x1b[31mthe cat\t貓\n")
    c("c1-control", good + "the cat\u0085\t貓\n")
    c("delete-char", good + "the cat\t貓\x7f\n")
    c("line-separator", good + "the cat\u2028sits\t貓 坐\n")
    c("nul-byte", good.encode() + b"the\x00cat\t\xe8\xb2\x93\n")
    c("cr-line-ends", good.replace("\n", "\r"))
    c("utf16", ("\ufeff" + good).encode("utf-16-le"))
    c("align-colon", good + "the cat\t貓\t0:0\n")
    c("align-letters", good + "the cat\t貓\ta-b\n")
    c("align-trailing-dash", good + "the cat\t貓\t0-\n")
    c("align-negative", good + "the cat\t貓\t-1-0\n")
    c("align-source-out-of-range", good + "the cat\t貓\t2-0\n")
    c("align-target-out-of-range", good + "the cat\t貓\t0-1\n")
    c("align-huge-index", good + "the cat\t貓\t99999999999999999999-0\n")
    c("align-commas", good + "the cat\t貓\t0-0,1-0\n")
    c("bad-line-39", good * 19 + "the cat\n")
    rng = random.Random(7)
    c("binary-noise", bytes(rng.randrange(256) for _ in range(4096)))


def vocabs():
    v = lambda name, content: write("vocab", name + ".txt", content)
    good = ["<pad>", "<bos>", "<eos>", "<unk>", "the", "cat"]
    v("empty", "")
    v("blank-lines", "\n\n\n")
    v("no-unk", "\n".join(t for t in good if t != "<unk>") + "\n")
    v("no-specials", "the\ncat\nsits\n")
    v("duplicate", "\n".join(good + ["the"]) + "\n")
    v("invalid-utf8", ("\n".join(good) + "\n").encode() + b"ca\xfft\n")
    v("space-in-token", "\n".join(good + ["the cat"]) + "\n")
    v("tab-in-token", "\n".join(good + ["the\tcat"]) + "\n")
    v("control-char", "\n".join(good + ["c\x01at"]) + "\n")
    v("del-char", "\n".join(good + ["ca\x7ft"]) + "\n")
    v("c1-char", "\n".join(good + ["\u009b31mcat"]) + "\n")
    v("nul-byte", ("\n".join(good[:2]) + "\n").encode() + b"\x00" + ("\n".join(good[2:]) + "\n").encode())
    v("utf16", ("\n".join(good) + "\n").encode("utf-16"))
    v("json-array", json.dumps(good) + "\n")
    rng = random.Random(8)
    v("binary-noise", bytes(rng.randrange(256) for _ in range(2048)))


def texts():
    t = lambda name, content: write("text", name + ".txt", content)
    t("invalid-utf8", b"the \xff cat")
    t("truncated-utf8", b"the cat \xe8\xb2")
    t("lone-continuation", b"the \x80 cat")
    t("overlong-slash", b"the \xc0\xaf cat")
    t("surrogate", b"the \xed\xa0\x80 cat")
    t("beyond-unicode", b"the \xf4\x90\x80\x80 cat")
    t("control-char", "the\x01cat")
    t("escape-sequence", "\x1b[2Jthe cat")
    t("delete-char", "the\x7f cat")
    t("c1-next-line", "the cat\u0085")
    t("c1-csi", "the \u009b2Jcat")
    t("line-separator", "the\u2028cat")
    t("bidi-override", "the \u202etac")
    t("empty", "")
    t("only-spaces", "     ")
    t("only-unknown", "zebra giraffe okapi")
    t("only-unknown-chinese", "斑馬長頸鹿")
    t("over-max-length", " ".join(["the", "cat", "sits"] * 9))
    t("10000-characters", ("the cat " * 1250)[:10000])
    t("10000-character-word", "x" * 10000)


def sentence_lists():
    s = lambda name, content: write("sentences", name + ".txt", content)
    good = "the cat sits on the mat .\ni love natural language processing\n"
    s("empty", "")
    s("comments-only", "# sentences for Monday\n\n   \n# none yet\n")
    s("invalid-utf8", good.encode() + b"the \xff cat\n")
    s("control-char", good + "the cat\x07 sits\n")
    s("escape-sequence", good + "\x1b[1mthe cat\n")
    s("c1-control", good + "the cat\u0085 sits\n")
    s("line-separator", good + "the cat\u2029\n")
    s("nul-byte", good.encode() + b"the\x00cat\n")
    s("line-over-1000-bytes", good + "the cat " * 125 + "x\n")
    s("utf16", good.encode("utf-16"))
    rng = random.Random(9)
    s("binary-noise", bytes(rng.randrange(256) for _ in range(2048)))


def lessons():
    """Broken lessons beside the lesson author's own (tests/data/lessons/, listed in MANIFEST.tsv too)."""
    les = lambda name, content: write("lesson", name + ".lesson", content)
    good = ("title: A lesson\ntitle.zh: 一課\nmodel: en-zh\nsentence: the cat sits on the mat .\n\n"
            "[step]\nstage: src.tokens\nsay: The tokens.\nsay.zh: 詞元。\n")
    les("empty", "")
    les("nul-byte", good.replace("The tokens.", "The\x00tokens."))
    les("utf16", good.encode("utf-16"))
    les("model-not-a-model", good.replace("model: en-zh", "model: ./empty.lesson"))
    les("model-absolute-path", good.replace("model: en-zh", "model: /etc/passwd"))
    les("model-dot-dot", good.replace("model: en-zh", "model: ../base/tiny.safetensors"))
    les("temperature-1e-40", good.replace("\n\n[step]", "\ndecode: sample\ntemperature: 1e-40\n\n[step]"))
    les("top-k-over-bound", good.replace("\n\n[step]", "\ntop-k: 2000000\n\n[step]"))
    les("c1-control", good.replace("The tokens.", "The\u0085tokens."))
    les("bidi-override", good.replace("The tokens.", "The \u202esnekot."))
    les("model-missing-file", good.replace("model: en-zh", "model: no-such-model.safetensors"))
    les("sentence-over-max-length", good.replace("sentence: the cat sits on the mat .", "sentence: " + "the cat sits " * 9))
    les("sentence-invalid-utf8", good.encode().replace(b"sits on", b"si\xffts on"))
    rng = random.Random(10)
    les("binary-noise", bytes(rng.randrange(256) for _ in range(2048)))


def main():
    models()
    corpora()
    vocabs()
    texts()
    sentence_lists()
    lessons()


if __name__ == "__main__":
    main()
