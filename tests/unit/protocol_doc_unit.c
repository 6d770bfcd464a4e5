/*
 * dsm/PROTOCOL.md says what the code does: its transition table has one
 * row per rule of the code's table (dsm_ps_rules), in the same order, with
 * the same seven cells (event, from, must, must not, to, set, clear), and
 * its message table has one row per op code of net/ops.h, no more, whose
 * handler cell names the function that the file it names registers for
 * that op ("on_arrive (barrier.c)": net_register(OP_BAR_ARRIVE, on_arrive)
 * in dsm/barrier.c, or another directory's barrier.c).
 */
#include "fake_pages.h"
#include "unit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ROWS = 128, LINE = 1024 };

/* The cells of a table row, trimmed and without backticks, joined by
 * " | "; at most `cells` of them.  False for a line that is no row. */
static bool row_cells(const char *line, int cells, char *out, size_t len)
{
    if (line[0] != '|')
        return false;
    out[0] = '\0';
    const char *p = line + 1;
    for (int c = 0; c < cells && *p && *p != '\n'; c++) {
        const char *end = strchr(p, '|');
        if (!end)
            break;
        char cell[LINE];
        size_t k = 0;
        for (const char *q = p; q < end && k < sizeof cell - 1; q++)
            if (*q != '`')
                cell[k++] = *q;
        while (k && isspace((unsigned char)cell[k - 1]))
            k--;
        cell[k] = '\0';
        const char *t = cell;
        while (isspace((unsigned char)*t))
            t++;
        snprintf(out + strlen(out), len - strlen(out), "%s%s", c ? " | " : "", t);
        p = end + 1;
    }
    return true;
}

/* The rows of the table after the line holding `marker` (header and rule
 * lines skipped), each cut to `cells` cells.  Returns how many. */
static size_t table_rows(FILE *f, const char *marker, int cells, char rows[][LINE])
{
    char line[4096];
    size_t n = 0;
    bool in = false;
    int seen = 0;
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        if (!in) {
            in = strstr(line, marker) != NULL;
            continue;
        }
        if (line[0] != '|')
            break;
        if (seen++ < 2)     /* the header and the |---| line */
            continue;
        if (n < MAX_ROWS && row_cells(line, cells, rows[n], LINE))
            n++;
    }
    return n;
}

static char rows[MAX_ROWS][LINE];

static void transitions_match_the_code(FILE *doc)
{
    size_t n = table_rows(doc, "<!-- transitions", 7, rows);
    EXPECT(n == dsm_ps_nrules, "PROTOCOL.md has %zu transitions, dsm_ps_rules %zu", n, dsm_ps_nrules);
    for (size_t i = 0; i < dsm_ps_nrules && i < n; i++) {
        char want[LINE];
        dsm_ps_rule_format(&dsm_ps_rules[i], want, sizeof want);
        EXPECT(!strcmp(rows[i], want), "row %zu of PROTOCOL.md's table:\n  is        %s\n  the code: %s", i + 1,
               rows[i], want);
    }
}

/* The op names of net/ops.h's enum, but NET_MAX_OPS. */
static size_t ops_of(FILE *f, char ops[][64])
{
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof line, f) && n < MAX_ROWS) {
        char name[64];
        if (sscanf(line, " %63[A-Z_]", name) == 1 && (!strncmp(name, "OP_", 3) || !strncmp(name, "NET_OP_", 7)))
            strcpy(ops[n++], name);
    }
    return n;
}

static void messages_match_the_ops(FILE *doc, FILE *ops_h)
{
    static char ops[MAX_ROWS][64];
    size_t nops = ops_of(ops_h, ops);
    size_t n = table_rows(doc, "<!-- messages", 1, rows);
    EXPECT(nops > 10, "found %zu op codes in ops.h", nops);
    for (size_t i = 0; i < nops; i++) {
        bool found = false;
        for (size_t j = 0; j < n; j++)
            found |= !strcmp(rows[j], ops[i]);
        EXPECT(found, "%s (ops.h) has no row in PROTOCOL.md's messages", ops[i]);
    }
    for (size_t j = 0; j < n; j++) {
        bool found = false;
        for (size_t i = 0; i < nops; i++)
            found |= !strcmp(rows[j], ops[i]);
        EXPECT(found, "PROTOCOL.md's message %s is not in ops.h", rows[j]);
    }
}

/* Whether file (a path from the top of the tree, or a name in one of the
 * library's directories) contains the text `want`. */
static bool source_says(const char *file, const char *want)
{
    static const char *const dirs[] = { ".", "util", "net", "dsm", "migrate", "profiler", "omp_rt" };
    for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s/%s", TOP_SRCDIR, dirs[d], file);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        char line[1024];
        bool found = false;
        while (!found && fgets(line, sizeof line, f))
            found = strstr(line, want) != NULL;
        fclose(f);
        if (found)
            return true;
    }
    return false;
}

static void handlers_match_the_code(FILE *doc)
{
    size_t n = table_rows(doc, "<!-- messages", 4, rows);
    for (size_t j = 0; j < n; j++) {
        char op[64], handler[64], file[64];
        const char *cell = rows[j];
        for (int c = 0; c < 3 && cell; c++)
            cell = strstr(cell, " | ") ? strstr(cell, " | ") + 3 : NULL;
        if (sscanf(rows[j], "%63[A-Z_]", op) != 1 || !cell ||
            sscanf(cell, "%63[a-z_] (%63[a-z_./])", handler, file) != 2) {
            EXPECT(false, "PROTOCOL.md's message row %zu names no handler as \"on_x (file.c)\": %s", j + 1, rows[j]);
            continue;
        }
        char want[256];
        snprintf(want, sizeof want, "net_register(%s, %s);", op, handler);
        EXPECT(source_says(file, want), "PROTOCOL.md says %s registers %s for %s; it does not", file, handler, op);
    }
}

int main(void)
{
    FILE *doc = fopen(PROTOCOL_MD, "r"), *ops_h = fopen(OPS_H, "r");
    if (!doc || !ops_h) {
        printf("cannot open %s or %s\n", PROTOCOL_MD, OPS_H);
        return 99;
    }
    transitions_match_the_code(doc);
    messages_match_the_ops(doc, ops_h);
    handlers_match_the_code(doc);
    fclose(doc);
    fclose(ops_h);
    return unit_status();
}
