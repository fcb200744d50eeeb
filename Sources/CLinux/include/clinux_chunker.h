// Content-defined chunking for strict app blocks: a copy of a blocked program with bytes
// appended, changed or inserted keeps most of its chunks, because chunk boundaries depend on
// the bytes around them (a gear rolling hash, as in FastCDC), not on offsets.
#ifndef CLINUX_CHUNKER_H
#define CLINUX_CHUNKER_H
#include <stddef.h>
#include <stdint.h>

// Chunks are at least 256 bytes, about 2 KiB on average and at most 16 KiB.
#define CLINUX_CHUNK_MIN 256
#define CLINUX_CHUNK_MAX 16384

struct clinux_chunker {
    uint64_t gear;
    uint64_t fingerprint;
    uint32_t length;
};

void clinux_chunker_reset(struct clinux_chunker *state);
// Feeds `length` bytes; stores the fingerprint (FNV-1a, 64 bits) of every chunk that ends
// within them in `out`, which must hold `length / CLINUX_CHUNK_MIN + 1` values. Returns how many.
size_t clinux_chunker_feed(struct clinux_chunker *state, const uint8_t *data, size_t length, uint64_t *out);
// Ends the input: stores the last, partial chunk's fingerprint and returns 1, or 0 when empty.
int clinux_chunker_finish(struct clinux_chunker *state, uint64_t *out);
#endif
