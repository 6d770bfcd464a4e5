/*
 * dsm/PROTOCOL.md says what the code does: its transition table has one
 * row per rule of the code's table (dsm_ps_rules), in the same order, with
 * the same seven cells (event, from, must, must not, to, set, clear), and
 * its message table has one row per op code of net/ops.h, no more, whose
 * handler cell names the function that the file it names registers for
 * that op ("on_arrive (barrier.c)": net_register(OP_BAR_ARRIVE, on_arrive),
 * or net_register_unlocked, in dsm/barrier.c, or another directory's
 * barrier.c).  Its sender cell
 * names every file of the library that sends the op (net_send(dst, OP,
 * ...) or net_send_nocopy, dsm_send_batches(OP, ...); NET_OP_DONE:
 * net_send_done), and each
 * op its reply cell names is sent by the handler's file.  The receiver
 * cell is prose ("node 0", "the page's home"): the handler it runs is
 * what is checked.
 */
#include "fake_pages.h"
#include "unit.h"

#include <ctype.h>
#include <dirent.h>
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

/* Cell c (from 0) of a row that row_cells() joined, copied to out. */
static bool cell_of(const char *row, int c, char *out, size_t len)
{
    for (; c > 0 && row; c--)
        row = strstr(row, " | ") ? strstr(row, " | ") + 3 : NULL;
    if (!row)
        return false;
    size_t k = strcspn(row, "|");
    while (k && row[k - 1] == ' ')
        k--;
    snprintf(out, len, "%.*s", (int)k, row);
    return true;
}

/* The handler a message row names, and its file: "on_x (file.c)". */
static bool handler_of(const char *row, char *handler, char *file)
{
    char cell[LINE];
    return cell_of(row, 3, cell, sizeof cell) && sscanf(cell, "%63[a-z_] (%63[a-z_./])", handler, file) == 2;
}

static void handlers_match_the_code(FILE *doc)
{
    size_t n = table_rows(doc, "<!-- messages", 5, rows);
    for (size_t j = 0; j < n; j++) {
        char op[64], handler[64], file[64];
        if (sscanf(rows[j], "%63[A-Z_]", op) != 1 || !handler_of(rows[j], handler, file)) {
            EXPECT(false, "PROTOCOL.md's message row %zu names no handler as \"on_x (file.c)\": %s", j + 1, rows[j]);
            continue;
        }
        char want[256], unlocked[256];
        snprintf(want, sizeof want, "net_register(%s, %s);", op, handler);
        snprintf(unlocked, sizeof unlocked, "net_register_unlocked(%s, %s);", op, handler);
        EXPECT(source_says(file, want) || source_says(file, unlocked),
               "PROTOCOL.md says %s registers %s for %s; it does not", file, handler, op);
    }
}

/* Whether the file at path sends op: a net_send() or net_send_nocopy()
 * line holding ", OP, ", a net_try_send() line holding ", OP)", or
 * dsm_send_batches(OP, ...); a handler replies NET_OP_DONE through
 * net_send_done(). */
static bool file_sends(const char *path, const char *op, bool reply)
{
    char arg[128], last[128], batch[128];
    snprintf(arg, sizeof arg, ", %s, ", op);
    snprintf(last, sizeof last, ", %s)", op);
    snprintf(batch, sizeof batch, "dsm_send_batches(%s, ", op);
    bool done = reply && !strcmp(op, "NET_OP_DONE");
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = ((strstr(line, "net_send(") || strstr(line, "net_send_nocopy(")) && strstr(line, arg)) ||
                (strstr(line, "net_try_send(") && strstr(line, last)) || strstr(line, batch) ||
                (done && strstr(line, "net_send_done("));
    fclose(f);
    return found;
}

/* The directories of the library that send messages. */
static const char *const send_dirs[] = { "net", "dsm", "migrate", "omp_rt" };

static void senders_match_the_code(FILE *doc)
{
    size_t n = table_rows(doc, "<!-- messages", 5, rows);
    for (size_t j = 0; j < n; j++) {
        char op[64], sender[LINE];
        if (sscanf(rows[j], "%63[A-Z_]", op) != 1 || !cell_of(rows[j], 1, sender, sizeof sender))
            continue;
        size_t files = 0;
        for (size_t d = 0; d < sizeof send_dirs / sizeof *send_dirs; d++) {
            char dir[512];
            snprintf(dir, sizeof dir, "%s/%s", TOP_SRCDIR, send_dirs[d]);
            DIR *dp = opendir(dir);
            for (struct dirent *e; dp && (e = readdir(dp));) {
                size_t len = strlen(e->d_name);
                if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
                    continue;
                char path[1024];
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                if (!file_sends(path, op, false))
                    continue;
                files++;
                EXPECT(strstr(sender, e->d_name), "%s/%s sends %s; PROTOCOL.md's sender cell does not name it: %s",
                       send_dirs[d], e->d_name, op, sender);
            }
            if (dp)
                closedir(dp);
        }
        EXPECT(files > 0, "no file of the library sends %s", op);
    }
}

/* Each op the reply cell names is sent from the handler's file. */
static void replies_match_the_code(FILE *doc)
{
    size_t n = table_rows(doc, "<!-- messages", 5, rows);
    for (size_t j = 0; j < n; j++) {
        char handler[64], file[64], reply[LINE];
        if (!handler_of(rows[j], handler, file) || !cell_of(rows[j], 4, reply, sizeof reply))
            continue;
        for (const char *p = reply; (p = strstr(p, "OP_"));) {
            const char *start = p >= reply + 4 && !strncmp(p - 4, "NET_", 4) ? p - 4 : p;
            char op[64];
            sscanf(start, "%63[A-Z_]", op);
            p += 3;
            bool sent = false;
            for (size_t d = 0; d < sizeof send_dirs / sizeof *send_dirs && !sent; d++) {
                char path[1024];
                snprintf(path, sizeof path, "%s/%s/%s", TOP_SRCDIR, send_dirs[d], file);
                sent = file_sends(path, op, true);
            }
            EXPECT(sent, "PROTOCOL.md: %s (%s) replies %s; the file does not send it", handler, file, op);
        }
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
    senders_match_the_code(doc);
    replies_match_the_code(doc);
    fclose(doc);
    fclose(ops_h);
    return unit_status();
}
