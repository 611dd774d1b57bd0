/* src/select/select.c: format selection. One rule table; the first matching row wins.
 * Today only CSR exists as a spx format, so every matrix gets csr (whose own "auto"
 * algorithm then picks a kernel from the row statistics, see csr_tuning.h). New formats add
 * rows here, each with the measurement that justifies it. */
#include "select/select.h"

typedef struct select_rule {
    const char *format;
    int (*applies)(const spx_features *feat, spx_backend b);
    const char *why;
} select_rule;

static int always(const spx_features *feat, spx_backend b) { (void)feat; (void)b; return 1; }

static const select_rule rules[] = {
    {"csr", always, "the only spx format so far; its auto algorithm adapts to row lengths"},
};

const char *spx_select_format(const spx_features *feat, spx_backend b)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].applies(feat, b)) return rules[i].format;
    return "csr";
}
