/* fuzz_torch_frame.c - the harness's checks on frames from the torch worker never crash and never accept a length that does not add up. */
#include <string.h>
#include "fuzz_helpers.h"
#include "ss_torch_proto.h"

/* Input: a frame header, an 8-byte RESULT head, then text read as ACK
 * capabilities; the storage size an OK result must carry comes from the
 * input's last 8 bytes (the tail, so payload mutations keep it). The whole
 * input is also read as a program result's returned values. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < SS_TP_HEADER_SIZE + 8 + 8) return -1;
    uint64_t storage = 0;
    for (int i = 0; i < 8; i++) storage |= (uint64_t)data[size - 8 + i] << (8 * i);
    storage &= ((uint64_t)1 << 40) - 1;
    char why[512];
    ss_tp_header h;
    if (ss_tp_header_decode(data, &h, why, sizeof why) == 0) {
        FUZZ_ASSERT(h.length <= SS_TP_MAX_PAYLOAD);
        FUZZ_ASSERT(h.type >= SS_TP_HELLO && h.type <= SS_TP_PROGRESS);
        ss_tp_result r;
        if (ss_tp_result_decode(data + SS_TP_HEADER_SIZE, h.length, storage, &r, why, sizeof why) == 0) {
            FUZZ_ASSERT(r.message_len <= SS_TP_MAX_MESSAGE);
            FUZZ_ASSERT(h.length == 8 + (uint64_t)r.message_len + (r.status == SS_TP_OK ? storage : 0));
        } else {
            FUZZ_ASSERT(why[0] != 0);
        }
    } else {
        FUZZ_ASSERT(why[0] != 0);
    }
    /* The whole input read as a program RESULT's returned values: every value
     * accepted lies inside the input and holds exactly its elements' bytes. */
    ss_prog_actual act;
    if (ss_tp_returns_decode(data, size, &act, why, sizeof why) == 0) {
        FUZZ_ASSERT(act.nret >= 0 && act.nret <= SS_PROG_MAX_RETURNS);
        for (int i = 0; i < act.nret; i++) {
            const ss_prog_actual_value *v = &act.ret[i];
            uint64_t numel = 1;
            for (int d = 0; d < v->ndim; d++) numel *= (uint64_t)v->sizes[d];
            FUZZ_ASSERT(v->ndim <= SS_MAX_NDIM && v->nbytes == numel * ss_dtype_size(v->dtype));
            FUZZ_ASSERT(v->bytes >= data && v->bytes + v->nbytes <= data + size);
        }
    } else {
        FUZZ_ASSERT(why[0] != 0);
    }
    ss_tp_caps caps;
    const size_t text = size - SS_TP_HEADER_SIZE - 8 - 8;
    if (ss_tp_caps_parse((const char *)data + SS_TP_HEADER_SIZE + 8, text, &caps, why, sizeof why) == 0)
        FUZZ_ASSERT(caps.torch[0] != 0 && strlen(caps.torch) < sizeof caps.torch);
    return 0;
}
