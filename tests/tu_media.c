/* tu_media.c — media bytes for the tests (tests/testutil.h): the header of a
 * WAV file, so that each test writes its samples and not the RIFF layout. */
#include "config.h"

#include "testutil.h"

#include <string.h>

/* Little-endian, as RIFF is. */
static void put32(unsigned char *p, unsigned v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

void tu_wav_header(unsigned char *p, size_t data_bytes, unsigned rate)
{
    memcpy(p, "RIFF", 4);
    put32(p + 4, (unsigned)(data_bytes + 44 - 8));
    memcpy(p + 8, "WAVEfmt ", 8);
    /* fmt chunk of 16 bytes, PCM (1), one channel. */
    const unsigned char fmt[] = {16, 0, 0, 0, 1, 0, 1, 0};
    memcpy(p + 16, fmt, 8);
    put32(p + 24, rate);
    put32(p + 28, rate * 2);
    /* Two bytes a frame, 16 bits a sample. */
    p[32] = 2, p[33] = 0, p[34] = 16, p[35] = 0;
    memcpy(p + 36, "data", 4);
    put32(p + 40, (unsigned)data_bytes);
}
