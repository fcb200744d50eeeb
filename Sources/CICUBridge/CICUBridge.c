#include "CICUBridge.h"
#include <unicode/uidna.h>

const void *cicu_url_standard_idna(void) {
    UErrorCode status = U_ZERO_ERROR;
    UIDNA *idna = uidna_openUTS46(UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ | UIDNA_NONTRANSITIONAL_TO_ASCII
                                  | UIDNA_NONTRANSITIONAL_TO_UNICODE, &status);
    return U_FAILURE(status) ? NULL : idna;
}

typedef int32_t (*conversion)(const UIDNA *, const char *, int32_t, char *, int32_t, UIDNAInfo *, UErrorCode *);

static int32_t convert(conversion function, const void *idna, const char *name, int32_t length, char *dest,
                       int32_t capacity, uint32_t *errors) {
    UIDNAInfo info = UIDNA_INFO_INITIALIZER;
    UErrorCode status = U_ZERO_ERROR;
    int32_t written = function((const UIDNA *)idna, name, length, dest, capacity, &info, &status);
    *errors = info.errors;
    if (status == U_BUFFER_OVERFLOW_ERROR) return written;
    return U_FAILURE(status) ? -1 : written;
}

int32_t cicu_name_to_ascii(const void *idna, const char *name, int32_t length, char *dest, int32_t capacity,
                           uint32_t *errors) {
    return convert(uidna_nameToASCII_UTF8, idna, name, length, dest, capacity, errors);
}

int32_t cicu_name_to_unicode(const void *idna, const char *name, int32_t length, char *dest, int32_t capacity,
                             uint32_t *errors) {
    return convert(uidna_nameToUnicodeUTF8, idna, name, length, dest, capacity, errors);
}
