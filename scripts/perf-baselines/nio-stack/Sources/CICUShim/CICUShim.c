#include <unicode/uidna.h>
#include "CICUShim.h"
int icu_shim_open(void) {
    UErrorCode error = U_ZERO_ERROR;
    UIDNA *idna = uidna_openUTS46(UIDNA_NONTRANSITIONAL_TO_ASCII, &error);
    char out[256]; UIDNAInfo info = UIDNA_INFO_INITIALIZER;
    int n = uidna_nameToASCII_UTF8(idna, "b\xc3\xbc" "cher.example", -1, out, sizeof out, &info, &error);
    return n;
}
