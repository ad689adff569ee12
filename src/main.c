// The command line: a table of subcommands, each in its own file
// (commands.h). Exit 0 on success, 2 on a usage error, 1 on a runtime error;
// every error is one line on stderr that says what and where.
#include <stdbool.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "fileio.h"

// In parts, as C11 compilers need only take literals of up to 4095 characters.
static const char *const usage_text[] = {
    "Usage: transformer-tracer COMMAND [OPTIONS]\n"
    "\n"
    "With no command, opens the window on the lesson picker and the shipped model.\n"
    "\n"
    "Commands:\n"
    "  window [--src TEXT]       open the window (the same as no command)\n"
    "         [--script FILE]    run a file of key presses, text and checks instead (tests; src/app/window.h)\n"
    "         [--sentences FILE] a class list, one sentence a line: Ctrl+PageDown / Ctrl+PageUp go through it\n"
    "         [--target TEXT]    teacher forcing, as for trace; the decoding options set the window's first strategy\n"
    "         [--lesson FILE]    open a lesson (docs/LESSONS.md); O in the window picks another\n"
    "         [--compare MODEL]  the second model of the page B sets beside (default: the untrained twin)\n"
    "  export --src TEXT --stage ID --out FILE.png   draw one stage to a PNG, without a window\n"
    "  translate --src TEXT      translate a sentence; prints the output tokens\n"
    "  trace --src TEXT          write every stage of the computation as JSON\n"
    "  init --out FILE           write a randomly initialised model\n"
    "  corpus --pair PAIR --out DIR   write a toy parallel corpus (en-zh or en-fr)\n"
    "  train --train FILE --out FILE  train a model on a corpus\n"
    "  eval --model FILE --corpus FILE  exact match, BLEU and alignment error rate\n"
    "  lint FILE...              check lesson files (docs/LESSONS.md); prints file:line: problem\n"
    "\n"
    ,
    "Options for translate and trace:\n"
    "  --model FILE              model file (safetensors); default: the shipped model\n"
    "  --decode MODE             greedy (default), beam or sample\n"
    "  --beam N                  beam width (default 4)\n"
    "  --temperature T           sampling temperature (default 1)\n"
    "  --top-k K                 sample from the K most likely tokens (default: all)\n"
    "  --top-p P                 sample from the smallest set with mass P (default 1)\n"
    "  --seed N                  sampling seed; the same seed repeats a run (default 1)\n"
    "  --max-steps N             most output tokens (default: the model's max_len)\n"
    "  --top N                   candidates recorded at each step (default 5)\n"
    "  --pad-to N                pad the source with <pad> to N tokens, as in a training batch, and mask the pads\n"
    "  --allow-special           let decoding choose <pad>, <bos> and <unk> (by default it never does)\n"
    "  --stages PATTERN          record only the stages whose id matches, e.g. 'dec.L*.cross_attn.weights' (also window)\n"
    "  --memory-limit SIZE       refuse a trace that needs more, e.g. 2G (default: a quarter of the physical memory)\n"
    "Experiments (translate, trace, export, window):\n"
    "  --no-look-ahead-mask      the decoder's self-attention sees later positions too (docs/TRACE.md)\n"
    "  --ablate LIST             silence heads and sub-layers: L2H1 (decoder layer 2's cross-attention head 1),\n"
    "                            dec.L1.self_attn.H3, enc.L2.self_attn, dec.L2.cross_attn, dec.L1.ffn, … joined by commas\n"
    "  --each-head               trace --target: also the mean loss with each head silenced alone\n"
    "  --compare MODEL           translate, trace: the sentence through a second model too (a shipped name such as\n"
    "                            en-zh-random, or a file), both teacher-forced on the first's output: each one's loss\n"
    "                            and output (window: its page B, by default the untrained twin)\n"
    "  --snapshot STEP           translate, trace, export: the model as it was at that step of its training, from\n"
    "                            its snapshots (train --snapshots; the shipped models keep 10, 0 = untrained)\n"
    "  --kv-cache                translate: also the multiply-adds with and without a KV cache (here and for the\n"
    "                            paper's base model); the window's K key shows the cache (docs/TRACE.md)\n"
    ,
    "Options for trace:\n"
    "  --target TEXT             teacher forcing: the reference translation\n"
    "  --out FILE                write the JSON here (atomically) instead of stdout\n"
    "  --format FORMAT           json (default); json-shared: each decoder row once; npz: NumPy's arrays, needs --out\n"
    "Options for init:\n"
    "  --src-vocab FILE --tgt-vocab FILE   one token per line\n"
    "  --d-model N --nhead N --layers N --d-ff N --max-len N --eps X --seed N --name TEXT\n"
    "Options for train (and the architecture options of init):\n"
    "  --valid FILE              validation split: greedy exact match in the progress line\n"
    "  --steps N --batch N       optimiser steps (default 3000; 0: the model as initialised, untrained), pairs per step (default 32)\n"
    "  --lr X --warmup N         peak learning rate (default 0.002), warm-up steps (default 200)\n"
    "  --label-smoothing X       default 0.1\n"
    "  --clip X                  clip the gradient norm (default 1; 0 = off)\n"
    "  --supervise-head L,H      train decoder layer L's cross-attention head H on the gold alignments\n"
    "  --align-weight X          weight of that alignment loss (default 1)\n"
    "  --threads N               worker threads (default 2); a run repeats exactly for a seed and thread count\n"
    "  --checkpoint-every N      keep a checkpoint every N steps\n"
    "  --snapshots N             also keep the weights at N steps of training, 0 to the last, and the loss curve\n"
    "                            (F16, in NAME.snapshots.safetensors beside the model: the window's training history, H)\n"    "  --eval-every N            validation exact match every N steps (default 500)\n"
    "  --resume FILE             go on from a checkpoint (same architecture and vocabulary)\n"
    "  --skip-bad                skip malformed corpus lines instead of refusing the corpus\n"
    "Options for export (and the decoding options above):\n"
    "  --stage ID                stage id, e.g. dec.L2.cross_attn.weights (docs/TRACE.md)\n"
    "  --head N --step N         head and decoding step (default: 1, or 0 where none applies)\n"
    "  --width N --height N      image size in design pixels (default 1200 × 800)\n"
    "  --scale X                 pixel density, e.g. 2 for slides (default 1)\n"
    "  --dark                    dark theme\n"
    "  --cmap NAME               viridis (default), cividis, magma or greys\n"
    "Options for eval:\n"
    "  --limit N                 evaluate the first N pairs only\n"
    "Options for corpus:\n"
    "  --pair en-zh|en-fr --seed N --out DIR\n"
    "\n"
    "  --help                    show this help\n"
    "  --version                 show the version\n",
    NULL,
};

static const struct {
    const char *name;
    int (*run)(const CliArgs *a);
} commands[] = {
    {"window", cmd_window}, {"export", cmd_export}, {"translate", cmd_translate}, {"trace", cmd_trace}, {"init", cmd_init},
    {"lint", cmd_lint},     {"corpus", cmd_corpus}, {"train", cmd_train},         {"eval", cmd_eval},
};

int main(int argc, char **argv) {
    CliArgs a;
    int rc = cli_parse(argc, argv, usage_text, &a);
    if (rc) {
        cli_args_deinit(&a);
        return rc == CLI_DONE ? 0 : rc;
    }
    size_t i = 0;
    while (i < sizeof commands / sizeof *commands && strcmp(a.cmd, commands[i].name)) i++;
    if (i == sizeof commands / sizeof *commands) {
        rc = cli_usage_error("unknown command \"%s\"", a.cmd);
    } else {
        // Ctrl+C during a write removes its temporary file (the window has SDL's handlers)
        if (commands[i].run != cmd_window) fio_remove_temp_files_on_signal();
        rc = commands[i].run(&a);
    }
    cli_args_deinit(&a);
    return rc;
}
