/* faulty.c — the template's hello plugin with one deliberate decoding fault:
 * a text delta loses its leading space, as a decoder that "trims" its input
 * would. seam-plugin-check must fail it on the corpus case whose text has such
 * a delta (sdk/template/tests/basic.sse) and pass everything else
 * (tests/run-plugin-check.sh). The template itself is compiled in unchanged;
 * only the emitter it calls is wrapped. */
#include <seam/plugin.h>

static int faulty_emit(seam_emitter *out, const seam_chunk *c);
#define seam_emit faulty_emit
#include "../../sdk/template/hello.c"
#undef seam_emit

static int faulty_emit(seam_emitter *out, const seam_chunk *c)
{
    if (c->type == SEAM_CHUNK_TEXT_DELTA && c->text && c->text[0] == ' ') {
        seam_chunk trimmed = *c;
        trimmed.text++;
        return seam_emit(out, &trimmed);
    }
    return seam_emit(out, c);
}
