/* mistral_ids.c — the tool call ids the openai plugin's Chat Completions
 * encoder (encode.c) sends on the mistral profile.
 *
 * Mistral refuses a request whose tool calls or tool results carry an id that
 * is not exactly 9 characters of [a-zA-Z0-9] ("Tool call id was call_abc but
 * must be a-z, A-Z, 0-9, with a length of 9"), so a conversation begun with
 * another provider (or ids seam synthesized) cannot continue there as is. On
 * the mistral profile every other id is replaced by a short one derived from
 * it (a hash in base 62): the same id gives the same short id for a call and
 * its result, and in the next turn's request too. Two ids of one request whose
 * hashes collide (or a hash equal to one of Mistral's own ids in it) are told
 * apart by rehashing with a salt. Mistral's own ids pass unchanged. The short
 * ids exist on the wire only: the caller keeps seeing its own ids. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int oa_mistral_id_ok(const char *id)
{
    size_t n = 0;
    for (; id[n]; n++)
        if (n >= 9 || !((id[n] >= 'a' && id[n] <= 'z') || (id[n] >= 'A' && id[n] <= 'Z') ||
                        (id[n] >= '0' && id[n] <= '9')))
            return 0;
    return n == 9;
}

void oa_short_id(const char *id, unsigned salt, char out[10])
{
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    uint64_t h = 1469598103934665603ull; /* FNV-1a, then a 64-bit finalizer to spread it */
    h = (h ^ (salt & 0xffu)) * 1099511628211ull;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    for (int i = 0; i < 9; i++) { /* 62^9 < 2^64: every digit varies */
        out[i] = digits[h % 62];
        h /= 62;
    }
    out[9] = '\0';
}

static oa_id_entry *id_map_find(oa_id_map *m, const char *orig)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->items[i].orig, orig) == 0)
            return &m->items[i];
    return NULL;
}

static int id_map_wire_taken(const oa_id_map *m, const char *wire)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->items[i].wire, wire) == 0)
            return 1;
    return 0;
}

oa_id_entry *oa_id_map_add(oa_id_map *m, const char *orig, const char *wire)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        oa_id_entry *items = realloc(m->items, cap * sizeof *items);
        if (!items) {
            m->nomem = 1;
            return NULL;
        }
        m->items = items;
        m->cap = cap;
    }
    oa_id_entry *e = &m->items[m->n++];
    e->orig = orig;
    memcpy(e->wire, wire, sizeof e->wire);
    return e;
}

/* The id as the wire carries it: unchanged without a map or when Mistral
 * accepts it, else its short id. */
const char *oa_wire_id(oa_id_map *m, const char *id)
{
    if (!id)
        id = "";
    if (!m || oa_mistral_id_ok(id))
        return id;
    oa_id_entry *e = id_map_find(m, id);
    if (e)
        return e->wire;
    char wire[10];
    unsigned salt = 0;
    do
        oa_short_id(id, salt++, wire);
    while (id_map_wire_taken(m, wire) && salt < 256);
    e = oa_id_map_add(m, id, wire);
    return e ? e->wire : id;
}

/* Reserves every id of the request that Mistral accepts as it is, so that no
 * short id made for another one can take it. */
void oa_id_map_reserve(oa_id_map *m, const seam_request *req)
{
    for (size_t i = 0; i < seam_request_message_count(req); i++) {
        const seam_message *msg = seam_request_message(req, i);
        for (size_t j = 0; j < seam_message_part_count(msg); j++) {
            const seam_part *p = seam_message_part(msg, j);
            seam_part_type t = seam_part_get_type(p);
            const char *id = seam_part_tool_call_id(p);
            if ((t == SEAM_PART_TOOL_CALL || t == SEAM_PART_TOOL_RESULT) && id &&
                oa_mistral_id_ok(id) && !id_map_find(m, id))
                oa_id_map_add(m, id, id);
        }
    }
}
