#include <pthread.h>
#include "clinux_chunker.h"

// 256 fixed pseudo-random values (splitmix64 from a fixed seed): boundaries must fall at the
// same places in every run and on every machine.
static uint64_t gear_table[256];
static pthread_once_t gear_once = PTHREAD_ONCE_INIT;

static void gear_init(void) {
    uint64_t x = 0x5157a7c0ffee1234ULL;
    for (int i = 0; i < 256; i++) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        gear_table[i] = z ^ (z >> 31);
    }
}

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
// 11 high bits zero: a boundary every 2 KiB on average (the high bits mix the last 64 bytes).
#define BOUNDARY_MASK 0xffe0000000000000ULL

void clinux_chunker_reset(struct clinux_chunker *state) {
    pthread_once(&gear_once, gear_init);
    state->gear = 0;
    state->fingerprint = FNV_OFFSET;
    state->length = 0;
}

size_t clinux_chunker_feed(struct clinux_chunker *state, const uint8_t *data, size_t length, uint64_t *out) {
    uint64_t gear = state->gear, fingerprint = state->fingerprint;
    uint32_t chunk = state->length;
    size_t count = 0;
    for (size_t i = 0; i < length; i++) {
        uint8_t byte = data[i];
        gear = (gear << 1) + gear_table[byte];
        fingerprint = (fingerprint ^ byte) * FNV_PRIME;
        chunk++;
        if ((chunk >= CLINUX_CHUNK_MIN && (gear & BOUNDARY_MASK) == 0) || chunk >= CLINUX_CHUNK_MAX) {
            out[count++] = fingerprint;
            fingerprint = FNV_OFFSET;
            chunk = 0;
        }
    }
    state->gear = gear;
    state->fingerprint = fingerprint;
    state->length = chunk;
    return count;
}

int clinux_chunker_finish(struct clinux_chunker *state, uint64_t *out) {
    if (state->length == 0) return 0;
    *out = state->fingerprint;
    state->fingerprint = FNV_OFFSET;
    state->length = 0;
    return 1;
}
