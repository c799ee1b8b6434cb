/* test-sanitizer.c: CSAN's algorithm, the reuse check and the report text
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include "ts-recorder.h"
#include "ts-sanitizer.h"

/* Tracks: 0 and 1 are the default streams of devices 0 and 1; 2.. are
 * created streams with torch-like handles. */
#define S0   0
#define S1   2
#define S2   3
#define S3   4
#define H1   94251573454208ull
#define H2   94251573456128ull
#define H3   94251573458048ull

#define PTR_A 139637976727552ull
#define PTR_B 139637976768512ull
#define PTR_C 139637976809472ull

#define SCHEMA_NORMAL "aten::normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)"
#define SCHEMA_SUM    "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor"
#define SCHEMA_EMPTY  "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
#define SCHEMA_ADD_   "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
#define SCHEMA_ADD    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
#define SCHEMA_MUL_   "aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"

static guint64 next_correlation = 1;

static TsSanitizer *
new_sanitizer (void)
{
  TsSanitizer *san = ts_sanitizer_new (2);

  ts_sanitizer_stream_created (san, S1, 0, H1);
  ts_sanitizer_stream_created (san, S2, 0, H2);
  ts_sanitizer_stream_created (san, S3, 1, H3);
  g_assert_cmpuint (ts_sanitizer_get_n_backfills (san), ==, 0);

  return san;
}

/* Runs one op through the classification helpers, as the torch layer
 * will: the schema says what each tensor argument is. */
static guint
op (TsSanitizer      *san,
    TsStreamId        stream,
    const char       *schema,
    const char *const names[],
    const guint64     ptrs[],
    guint             n_inputs,
    guint64           output,
    const TsSanitizerFrame *frame)
{
  g_autoptr(TsSanitizerArgs) args = ts_sanitizer_args_new ();
  TsSanitizerOp o = { 0 };
  const TsSanitizerAccess *accesses;
  guint n;

  for (guint i = 0; i < n_inputs; i++)
    ts_sanitizer_args_add_input (args, ptrs[i], names[i],
                                 ts_sanitizer_schema_arg_kind (schema, names[i]));
  if (output != 0)
    ts_sanitizer_args_add_output (args, output, ts_sanitizer_schema_output_kind (schema));

  accesses = ts_sanitizer_args_get_accesses (args, &n);

  o.schema = schema;
  o.correlation = next_correlation++;
  o.frames = frame;
  o.n_frames = frame != NULL ? 1 : 0;

  return ts_sanitizer_kernel (san, stream, accesses, n, &o);
}

static guint
write_op (TsSanitizer *san,
          TsStreamId   stream,
          guint64      ptr)
{
  static const char *const names[] = { "self" };

  return op (san, stream, SCHEMA_NORMAL, names, &ptr, 1, ptr, NULL);
}

static guint
read_op (TsSanitizer *san,
         TsStreamId   stream,
         guint64      ptr,
         guint64      out)
{
  static const char *const names[] = { "self" };

  return op (san, stream, SCHEMA_SUM, names, &ptr, 1, out, NULL);
}

/* Seed 04 */

static const TsSanitizerFrame frame_alloc_a =
  { "04_stream_race.py", 16, "<module>", "A = torch.empty((100, 100), device=cuda).normal_(0.0, 1.0)" };
static const TsSanitizerFrame frame_sum =
  { "04_stream_race.py", 19, "<module>", "    B = torch.sum(A)\n" };

static TsSanitizer *
run_seed_04 (void)
{
  TsSanitizer *san = ts_sanitizer_new (1);
  static const char *const self_name[] = { "self" };
  const guint64 a = PTR_A;

  ts_sanitizer_stream_created (san, 1, 0, H1);

  /* A = torch.empty(...).normal_(...) on the default stream */
  ts_sanitizer_alloc (san, PTR_A, 40448, 0, &frame_alloc_a, 1);
  g_assert_cmpuint (op (san, 0, SCHEMA_EMPTY, NULL, NULL, 0, PTR_A, &frame_alloc_a), ==, 0);
  g_assert_cmpuint (op (san, 0, SCHEMA_NORMAL, self_name, &a, 1, PTR_A, &frame_alloc_a), ==, 0);

  /* with torch.cuda.stream(s): B = torch.sum(A) */
  ts_sanitizer_alloc (san, PTR_B, 512, 1, &frame_sum, 1);
  g_assert_cmpuint (op (san, 1, SCHEMA_SUM, self_name, &a, 1, PTR_B, &frame_sum), ==, 1);

  return san;
}

static void
test_seed_04 (void)
{
  g_autoptr(TsSanitizer) san = run_seed_04 ();
  const TsSanitizerReport *r;

  g_assert_cmpuint (ts_sanitizer_get_n_reports (san), ==, 1);
  r = ts_sanitizer_get_report (san, 0);
  g_assert_cmpint (r->kind, ==, TS_SANITIZER_RACE);
  g_assert_cmpuint (r->data_ptr, ==, PTR_A);

  g_assert_cmpuint (r->current.stream, ==, 1);
  g_assert_cmpuint (r->current.stream_handle, ==, H1);
  g_assert_false (r->current.is_write);
  g_assert_false (r->current.is_output);
  g_assert_cmpstr (r->current.names, ==, "self");
  g_assert_cmpstr (r->current.schema, ==, SCHEMA_SUM);
  g_assert_cmpuint (r->current.correlation, ==, next_correlation - 1);
  g_assert_cmpuint (r->current.n_frames, ==, 1);
  g_assert_cmpuint (r->current.frames[0].line, ==, 19);

  g_assert_cmpuint (r->previous.stream, ==, 0);
  g_assert_cmpuint (r->previous.stream_handle, ==, 0);
  g_assert_true (r->previous.is_write);
  g_assert_true (r->previous.is_output);
  g_assert_cmpstr (r->previous.schema, ==, SCHEMA_NORMAL);
  g_assert_cmpuint (r->previous.correlation, ==, next_correlation - 2);
  g_assert_cmpuint (r->previous.frames[0].line, ==, 16);

  g_assert_cmpuint (r->n_alloc_frames, ==, 1);
  g_assert_cmpstr (r->alloc_frames[0].file, ==, "04_stream_race.py");
}

static void
test_report_text (void)
{
  g_autoptr(TsSanitizer) san = run_seed_04 ();
  g_autofree char *text = ts_sanitizer_report_format (ts_sanitizer_get_report (san, 0));
  g_autofree char *errors = ts_sanitizer_format_errors (1);
  const char *expected =
    "============================\n"
    "CSAN detected a possible data race on tensor with data pointer 139637976727552\n"
    "Access by stream 94251573454208 during kernel:\n"
    "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor\n"
    "reading from argument(s) self\n"
    "With stack trace:\n"
    "  File \"04_stream_race.py\", line 19, in <module>\n"
    "    B = torch.sum(A)\n"
    "\n"
    "Previous access by stream 0 during kernel:\n"
    "aten::normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)\n"
    "writing to argument(s) self, and to the output\n"
    "With stack trace:\n"
    "  File \"04_stream_race.py\", line 16, in <module>\n"
    "    A = torch.empty((100, 100), device=cuda).normal_(0.0, 1.0)\n"
    "\n"
    "Tensor was allocated with stack trace:\n"
    "  File \"04_stream_race.py\", line 16, in <module>\n"
    "    A = torch.empty((100, 100), device=cuda).normal_(0.0, 1.0)\n";

  g_assert_cmpstr (text, ==, expected);
  g_assert_cmpstr (errors, ==, "detected 1 errors");
}

/* Each report also lands in the recorder, when there is one. */
static void
test_recorder (void)
{
  g_autoptr(TsRecorder) rec = ts_recorder_new ();
  g_autoptr(TsSanitizer) san = NULL;
  g_autofree char *text = NULL;
  TsSanitizerRecord r;

  /* Without a recorder nothing is recorded, and nothing fails. */
  san = run_seed_04 ();
  g_assert_null (ts_sanitizer_get_recorder (san));
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_SANITIZER), ==, 0);

  ts_sanitizer_set_recorder (san, rec);
  read_op (san, 1, PTR_A, 0);
  g_assert_cmpuint (ts_sanitizer_get_n_reports (san), ==, 2);
  g_assert_cmpuint (ts_recorder_get_count (rec, TS_RECORD_SANITIZER), ==, 1);
  g_assert_true (ts_recorder_get (rec, TS_RECORD_SANITIZER, 0, &r));

  g_assert_cmpuint (r.addr, ==, PTR_A);
  g_assert_cmpuint (r.correlation, ==, next_correlation - 1);
  g_assert_cmpuint (r.prev_correlation, ==, next_correlation - 3);
  g_assert_cmpuint (r.stream, ==, 1);
  g_assert_cmpuint (r.prev_stream, ==, 0);
  g_assert_cmpuint (r.is_write, ==, 0);
  g_assert_cmpuint (r.prev_is_write, ==, 1);
  g_assert_cmpstr (ts_recorder_lookup (rec, r.op), ==, SCHEMA_SUM);
  g_assert_cmpstr (ts_recorder_lookup (rec, r.prev_op), ==, SCHEMA_NORMAL);
  g_assert_cmpuint (r.loc.line, ==, 0);          /* read_op passes no stack */
  g_assert_cmpuint (r.loc.file, ==, 0);
  g_assert_cmpuint (r.prev_loc.line, ==, 16);
  g_assert_cmpstr (ts_recorder_lookup (rec, r.prev_loc.file), ==, "04_stream_race.py");
  g_assert_cmpstr (ts_recorder_lookup (rec, r.prev_loc.function), ==, "<module>");
  g_assert_cmpuint (r.alloc_loc.line, ==, 16);
  text = ts_sanitizer_report_format (ts_sanitizer_get_report (san, 1));
  g_assert_cmpstr (ts_recorder_lookup (rec, r.report), ==, text);
}

/* A hand-made report: output only, no names, no allocation trace. */
static void
test_report_text_variants (void)
{
  TsSanitizerReport r = { 0 };
  g_autofree char *text = NULL;

  r.kind = TS_SANITIZER_RACE;
  r.data_ptr = 42;
  r.current.stream_handle = 7;
  r.current.is_write = TRUE;
  r.current.is_output = TRUE;
  r.current.names = "";
  r.current.schema = "aten::randn(SymInt[] size) -> Tensor";
  r.previous.stream_handle = 0;
  r.previous.is_write = FALSE;
  r.previous.is_output = FALSE;
  r.previous.names = "self, other";
  r.previous.schema = SCHEMA_ADD;

  text = ts_sanitizer_report_format (&r);
  g_assert_cmpstr (text, ==,
                   "============================\n"
                   "CSAN detected a possible data race on tensor with data pointer 42\n"
                   "Access by stream 7 during kernel:\n"
                   "aten::randn(SymInt[] size) -> Tensor\n"
                   "writing to the output\n"
                   "With stack trace:\n"
                   "\n"
                   "Previous access by stream 0 during kernel:\n"
                   SCHEMA_ADD "\n"
                   "reading from argument(s) self, other\n"
                   "With stack trace:\n"
                   "\n"
                   "Trace for tensor allocation not found.");
}

static void
test_format_stack (void)
{
  TsSanitizerFrame frames[7];
  g_autofree char *text = NULL;

  frames[0] = (TsSanitizerFrame) { "x.py", 30, "<module>", "f(10)" };
  for (guint i = 1; i < 6; i++)
    frames[i] = (TsSanitizerFrame) { "x.py", 5, "f", "  return f(n - 1)  " };
  frames[6] = (TsSanitizerFrame) { "x.py", 3, "f", NULL };

  text = ts_sanitizer_format_stack (frames, 7);
  g_assert_cmpstr (text, ==,
                   "  File \"x.py\", line 30, in <module>\n"
                   "    f(10)\n"
                   "  File \"x.py\", line 5, in f\n"
                   "    return f(n - 1)\n"
                   "  File \"x.py\", line 5, in f\n"
                   "    return f(n - 1)\n"
                   "  File \"x.py\", line 5, in f\n"
                   "    return f(n - 1)\n"
                   "  [Previous line repeated 2 more times]\n"
                   "  File \"x.py\", line 3, in f\n");

  g_clear_pointer (&text, g_free);
  text = ts_sanitizer_format_stack (frames + 1, 4);
  g_assert_true (g_str_has_suffix (text, "  [Previous line repeated 1 more time]\n"));
}

/* Seed 05: Stream.synchronize before the loop, wait_stream for the fix. */
static void
test_seed_05 (void)
{
  g_autoptr(TsSanitizer) san = ts_sanitizer_new (1);

  ts_sanitizer_stream_created (san, 1, 0, H1);

  ts_sanitizer_alloc (san, PTR_A, 512, 0, NULL, 0);
  g_assert_cmpuint (write_op (san, 0, PTR_A), ==, 0);
  ts_sanitizer_stream_synchronize (san, 0);
  for (guint i = 0; i < 100; i++)
    {
      ts_sanitizer_alloc (san, PTR_B, 512, 1, NULL, 0);
      g_assert_cmpuint (read_op (san, 1, PTR_A, PTR_B), ==, 0);
      ts_sanitizer_free (san, PTR_B, NULL, 0);
    }

  ts_sanitizer_alloc (san, PTR_C, 4000256, 0, NULL, 0);
  g_assert_cmpuint (write_op (san, 0, PTR_C), ==, 0);
  ts_sanitizer_stream_wait_stream (san, 1, 0);
  g_assert_cmpuint (read_op (san, 1, PTR_C, PTR_B), ==, 0);
  ts_sanitizer_stream_wait_stream (san, 0, 1);

  g_assert_cmpuint (ts_sanitizer_get_n_reports (san), ==, 0);
  /* B was allocated on stream 1 and freed every iteration: nothing but
   * stream 1 touched it, so nothing is reported even without syncs. */
  g_assert_cmpuint (ts_sanitizer_get_n_backfills (san), ==, 1); /* the last B */
}

/* Synchronization forms: write A on S0, sync, read A on S1. */

typedef void (*SyncFunc) (TsSanitizer *san);

static guint
write_sync_read (SyncFunc sync)
{
  g_autoptr(TsSanitizer) san = new_sanitizer ();

  ts_sanitizer_alloc (san, PTR_A, 1024, S0, NULL, 0);
  g_assert_cmpuint (write_op (san, S0, PTR_A), ==, 0);
  if (sync != NULL)
    sync (san);
  read_op (san, S1, PTR_A, 0);

  return ts_sanitizer_get_n_reports (san);
}

static void sync_event_wait (TsSanitizer *san)
{
  ts_sanitizer_event_created (san, 1);
  ts_sanitizer_event_record (san, 1, S0);
  ts_sanitizer_stream_wait_event (san, S1, 1);
}

static void sync_wait_stream (TsSanitizer *san)
{
  ts_sanitizer_stream_wait_stream (san, S1, S0);
}

static void sync_stream_synchronize (TsSanitizer *san)
{
  ts_sanitizer_stream_synchronize (san, S0);
}

static void sync_event_synchronize (TsSanitizer *san)
{
  ts_sanitizer_event_created (san, 1);
  ts_sanitizer_event_record (san, 1, S0);
  ts_sanitizer_event_synchronize (san, 1);
}

static void sync_device_all (TsSanitizer *san)
{
  ts_sanitizer_device_synchronize (san, -1);
}

static void sync_device_0 (TsSanitizer *san)
{
  ts_sanitizer_device_synchronize (san, 0);
}

static void
test_sync_suppresses (void)
{
  g_assert_cmpuint (write_sync_read (NULL), ==, 1);
  g_assert_cmpuint (write_sync_read (sync_event_wait), ==, 0);
  g_assert_cmpuint (write_sync_read (sync_wait_stream), ==, 0);
  g_assert_cmpuint (write_sync_read (sync_stream_synchronize), ==, 0);
  g_assert_cmpuint (write_sync_read (sync_event_synchronize), ==, 0);
  g_assert_cmpuint (write_sync_read (sync_device_all), ==, 0);
  g_assert_cmpuint (write_sync_read (sync_device_0), ==, 0);
}

static void sync_event_wrong_stream (TsSanitizer *san)
{
  ts_sanitizer_event_created (san, 1);
  ts_sanitizer_event_record (san, 1, S1);
  ts_sanitizer_stream_wait_event (san, S1, 1);
}

static void sync_wait_before_record (TsSanitizer *san)
{
  ts_sanitizer_event_created (san, 1);
  ts_sanitizer_stream_wait_event (san, S1, 1);
  ts_sanitizer_event_record (san, 1, S0);
}

static void sync_unrelated_stream (TsSanitizer *san)
{
  ts_sanitizer_stream_synchronize (san, S2);
}

static void sync_event_recorded_before (TsSanitizer *san)
{
  /* An event recorded on S2, which never saw the write. */
  ts_sanitizer_event_created (san, 1);
  ts_sanitizer_event_record (san, 1, S2);
  ts_sanitizer_event_synchronize (san, 1);
}

static void sync_other_device (TsSanitizer *san)
{
  ts_sanitizer_device_synchronize (san, 1);
}

static void sync_wrong_direction (TsSanitizer *san)
{
  ts_sanitizer_stream_wait_stream (san, S0, S1);
}

static void
test_sync_does_not_suppress (void)
{
  g_assert_cmpuint (write_sync_read (sync_event_wrong_stream), ==, 1);
  g_assert_cmpuint (write_sync_read (sync_wait_before_record), ==, 1);
  g_assert_cmpuint (write_sync_read (sync_unrelated_stream), ==, 1);
  g_assert_cmpuint (write_sync_read (sync_event_recorded_before), ==, 1);
  g_assert_cmpuint (write_sync_read (sync_other_device), ==, 1);
  g_assert_cmpuint (write_sync_read (sync_wrong_direction), ==, 1);
}

/* A record made before the write does not cover it; re-recording does. */
static void
test_event_rerecord (void)
{
  g_autoptr(TsSanitizer) san = new_sanitizer ();

  ts_sanitizer_event_created (san, 5);
  ts_sanitizer_event_record (san, 5, S0);
  write_op (san, S0, PTR_A);
  ts_sanitizer_stream_wait_event (san, S1, 5);
  g_assert_cmpuint (read_op (san, S1, PTR_A, 0), ==, 1);

  ts_sanitizer_event_record (san, 5, S0);
  ts_sanitizer_stream_wait_event (san, S2, 5);
  g_assert_cmpuint (read_op (san, S2, PTR_A, 0), ==, 0);

  /* Ordering is transitive through events: S3 waits on S2's record. */
  ts_sanitizer_event_created (san, 6);
  ts_sanitizer_event_record (san, 6, S2);
  ts_sanitizer_stream_wait_event (san, S3, 6);
  g_assert_cmpuint (read_op (san, S3, PTR_A, 0), ==, 0);

  /* A destroyed event id reused: a fresh, empty state. */
  ts_sanitizer_event_destroyed (san, 5);
  ts_sanitizer_event_created (san, 5);
  g_assert_cmpuint (write_op (san, S0, PTR_B), ==, 0);
  ts_sanitizer_stream_wait_event (san, S1, 5);
  g_assert_cmpuint (read_op (san, S1, PTR_B, 0), ==, 1);
  g_assert_cmpuint (ts_sanitizer_get_n_reports (san), ==, 2);
}

static void
test_write_after_reads (void)
{
  g_autoptr(TsSanitizer) san = new_sanitizer ();
  const TsSanitizerReport *r;

  ts_sanitizer_alloc (san, PTR_A, 1024, S0, NULL, 0);
  write_op (san, S0, PTR_A);
  ts_sanitizer_stream_wait_stream (san, S1, S0);
  ts_sanitizer_stream_wait_stream (san, S2, S0);
  ts_sanitizer_stream_wait_stream (san, S3, S0);
  g_assert_cmpuint (read_op (san, S1, PTR_A, 0), ==, 0);
  g_assert_cmpuint (read_op (san, S2, PTR_A, 0), ==, 0);
  g_assert_cmpuint (read_op (san, S3, PTR_A, 0), ==, 0);
  g_assert_cmpuint (read_op (san, S0, PTR_A, 0), ==, 0);

  /* S0 waits for S1 only: the reads on S2 and S3 race with the write. */
  ts_sanitizer_stream_wait_stream (san, S0, S1);
  g_assert_cmpuint (write_op (san, S0, PTR_A), ==, 2);
  r = ts_sanitizer_get_report (san, 0);
  g_assert_cmpuint (r->previous.stream, ==, S2);
  g_assert_false (r->previous.is_write);
  g_assert_true (r->current.is_write);
  r = ts_sanitizer_get_report (san, 1);
  g_assert_cmpuint (r->previous.stream, ==, S3);

  /* The write cleared the reads: the next write on S0 checks that write. */
  g_assert_cmpuint (write_op (san, S0, PTR_A), ==, 0);
  /* Write after write on another stream. */
  g_assert_cmpuint (write_op (san, S2, PTR_A), ==, 1);
  r = ts_sanitizer_get_report (san, 2);
  g_assert_true (r->previous.is_write);
  g_assert_cmpuint (r->previous.stream, ==, S0);
}

/* Reads never race with reads. */
static void
test_reads_only (void)
{
  g_autoptr(TsSanitizer) san = new_sanitizer ();

  ts_sanitizer_alloc (san, PTR_A, 1024, S0, NULL, 0);
  g_assert_cmpuint (read_op (san, S0, PTR_A, 0), ==, 0);
  g_assert_cmpuint (read_op (san, S1, PTR_A, 0), ==, 0);
  g_assert_cmpuint (read_op (san, S2, PTR_A, 0), ==, 0);
  g_assert_cmpuint (ts_sanitizer_get_n_reports (san), ==, 0);
}

/* An in-place op on the same tensor twice (A.add_(A)) is one write access
 * naming both arguments; a new stream after a device sync is ordered. */
static void
test_aliases_and_new_stream (void)
{
  g_autoptr(TsSanitizer) san = new_sanitizer ();
  static const char *const names[] = { "self", "other" };
  const guint64 ptrs[] = { PTR_A, PTR_A };
  const TsSanitizerReport *r;

  ts_sanitizer_alloc (san, PTR_A, 1024, S0, NULL, 0);
  g_assert_cmpuint (op (san, S0, SCHEMA_ADD_, names, ptrs, 2, PTR_A, NULL), ==, 0);
  g_assert_cmpuint (op (san, S1, SCHEMA_MUL_, names, ptrs, 2, PTR_A, NULL), ==, 1);
  r = ts_sanitizer_get_report (san, 0);
  g_assert_cmpstr (r->current.names, ==, "self, other");
  g_assert_true (r->current.is_write);
  g_assert_true (r->current.is_output);

  ts_sanitizer_device_synchronize (san, -1);
  ts_sanitizer_stream_created (san, 9, 0, 77);
  g_assert_cmpuint (read_op (san, 9, PTR_A, 0), ==, 0);
  /* An unknown stream is back-filled the same way. */
  g_assert_cmpuint (read_op (san, 10, PTR_A, 0), ==, 0);
  g_assert_cmpuint (ts_sanitizer_get_n_backfills (san), ==, 1);
  /* Stream 9 never synchronized with stream 10, which came later; a
   * back-filled stream is printed with its id as the handle. */
  g_assert_cmpuint (write_op (san, 9, PTR_A), ==, 1);
  r = ts_sanitizer_get_report (san, 1);
  g_assert_cmpuint (r->current.stream_handle, ==, 77);
  g_assert_cmpuint (r->previous.stream, ==, 10);
  g_assert_cmpuint (r->previous.stream_handle, ==, 10);
  /* The new stream's write is not ordered before S1's next read. */
  g_assert_cmpuint (read_op (san, S1, PTR_A, 0), ==, 1);
  r = ts_sanitizer_get_report (san, 2);
  g_assert_cmpuint (r->previous.stream_handle, ==, 77);
}

/* Back-filling: a tensor never allocated has no allocation trace; a second
 * allocation at a live pointer replaces the entry. */
static void
test_backfill_tensor (void)
{
  g_autoptr(TsSanitizer) san = new_sanitizer ();
  g_autofree char *text = NULL;
  const TsSanitizerFrame frame = { "x.py", 3, "<module>", "y = x * 2" };

  write_op (san, S0, PTR_A);
  g_assert_cmpuint (ts_sanitizer_get_n_backfills (san), ==, 1);
  g_assert_cmpuint (read_op (san, S1, PTR_A, 0), ==, 1);
  text = ts_sanitizer_report_format (ts_sanitizer_get_report (san, 0));
  g_assert_true (g_str_has_suffix (text, "\nTrace for tensor allocation not found."));

  ts_sanitizer_alloc (san, PTR_A, 1024, S0, &frame, 1);
  g_assert_cmpuint (ts_sanitizer_get_n_backfills (san), ==, 2);
  /* The old accesses went with the old entry. */
  g_assert_cmpuint (write_op (san, S1, PTR_A), ==, 0);
}

/* CSAN deletes the entry at the free; a free without record_stream followed
 * by reuse for a kernel on another stream is our own check. */
static const TsSanitizerFrame frame_free = { "reuse.py", 8, "<module>", "del x" };
static const TsSanitizerFrame frame_realloc = { "reuse.py", 9, "<module>", "y = torch.ones(256, device='cuda')" };

static TsSanitizer *
use_on_side_stream_then_free (gboolean record)
{
  TsSanitizer *san = new_sanitizer ();

  ts_sanitizer_alloc (san, PTR_A, 4096, S0, NULL, 0);
  write_op (san, S0, PTR_A);
  ts_sanitizer_stream_wait_stream (san, S1, S0);
  g_assert_cmpuint (read_op (san, S1, PTR_A, PTR_C), ==, 0);
  if (record)
    ts_sanitizer_record_stream (san, PTR_A, S1);
  ts_sanitizer_free (san, PTR_A, &frame_free, 1);

  return san;
}

static void
test_reuse_without_record_stream (void)
{
  g_autoptr(TsSanitizer) san = use_on_side_stream_then_free (FALSE);
  g_autofree char *text = NULL;
  const TsSanitizerReport *r;

  /* The allocator hands the block to a new tensor on S0 at once. */
  ts_sanitizer_alloc (san, PTR_A, 1024, S0, &frame_realloc, 1);
  g_assert_cmpuint (write_op (san, S0, PTR_A), ==, 1);
  r = ts_sanitizer_get_report (san, 0);
  g_assert_cmpint (r->kind, ==, TS_SANITIZER_REUSE);
  g_assert_cmpuint (r->data_ptr, ==, PTR_A);
  g_assert_cmpuint (r->freed_ptr, ==, PTR_A);
  g_assert_cmpuint (r->current.stream, ==, S0);
  g_assert_cmpuint (r->previous.stream, ==, S1);
  g_assert_false (r->previous.is_write);
  g_assert_cmpuint (r->n_free_frames, ==, 1);
  g_assert_cmpuint (r->free_frames[0].line, ==, 8);
  g_assert_cmpuint (r->alloc_frames[0].line, ==, 9);

  text = ts_sanitizer_report_format (r);
  g_assert_cmpstr (text, ==,
                   "============================\n"
                   "Tensorscope detected a possible data race on memory reused by the caching allocator, at data pointer 139637976727552\n"
                   "Access by stream 0 during kernel:\n"
                   SCHEMA_NORMAL "\n"
                   "writing to argument(s) self, and to the output\n"
                   "With stack trace:\n"
                   "\n"
                   "Previous access by stream 94251573454208 during kernel, to the tensor with data pointer 139637976727552, freed before this memory was reused:\n"
                   SCHEMA_SUM "\n"
                   "reading from argument(s) self\n"
                   "With stack trace:\n"
                   "\n"
                   "That tensor was freed without record_stream() on stream 94251573454208, with stack trace:\n"
                   "  File \"reuse.py\", line 8, in <module>\n"
                   "    del x\n"
                   "\n"
                   "Tensor was allocated with stack trace:\n"
                   "  File \"reuse.py\", line 9, in <module>\n"
                   "    y = torch.ones(256, device='cuda')\n");

  /* Checked once: later accesses follow CSAN's rules only. */
  g_assert_cmpuint (write_op (san, S0, PTR_A), ==, 0);
  g_assert_cmpuint (ts_sanitizer_get_n_reports (san), ==, 1);
}

static void
test_reuse_record_stream (void)
{
  g_autoptr(TsSanitizer) san = use_on_side_stream_then_free (TRUE);

  ts_sanitizer_alloc (san, PTR_A, 1024, S0, NULL, 0);
  g_assert_cmpuint (write_op (san, S0, PTR_A), ==, 0);
  g_assert_cmpuint (ts_sanitizer_get_n_reports (san), ==, 0);
}

static void
test_reuse_ordered (void)
{
  g_autoptr(TsSanitizer) a = use_on_side_stream_then_free (FALSE);
  g_autoptr(TsSanitizer) b = use_on_side_stream_then_free (FALSE);
  g_autoptr(TsSanitizer) c = use_on_side_stream_then_free (FALSE);

  /* The new tensor's stream waits for the side stream before using it. */
  ts_sanitizer_alloc (a, PTR_A, 1024, S0, NULL, 0);
  ts_sanitizer_stream_wait_stream (a, S0, S1);
  g_assert_cmpuint (write_op (a, S0, PTR_A), ==, 0);

  /* A host sync between the free and the reuse. */
  ts_sanitizer_device_synchronize (b, -1);
  ts_sanitizer_alloc (b, PTR_A, 1024, S0, NULL, 0);
  g_assert_cmpuint (write_op (b, S0, PTR_A), ==, 0);

  /* The side stream itself reuses it: stream order. */
  ts_sanitizer_alloc (c, PTR_A, 1024, S1, NULL, 0);
  g_assert_cmpuint (write_op (c, S1, PTR_A), ==, 0);

  g_assert_cmpuint (ts_sanitizer_get_n_reports (a), ==, 0);
  g_assert_cmpuint (ts_sanitizer_get_n_reports (b), ==, 0);
  g_assert_cmpuint (ts_sanitizer_get_n_reports (c), ==, 0);
}

/* A block split: the new tensor lies inside the freed one, and a second
 * piece of it is reused after the first. */
static void
test_reuse_split_block (void)
{
  g_autoptr(TsSanitizer) san = use_on_side_stream_then_free (FALSE);

  ts_sanitizer_alloc (san, PTR_A + 2048, 512, S0, NULL, 0);
  ts_sanitizer_alloc (san, PTR_A + 512, 512, S0, NULL, 0);
  ts_sanitizer_alloc (san, PTR_A + 8192, 512, S0, NULL, 0);  /* outside */
  g_assert_cmpuint (read_op (san, S0, PTR_A + 2048, 0), ==, 1);
  g_assert_cmpuint (write_op (san, S0, PTR_A + 512), ==, 1);
  g_assert_cmpuint (write_op (san, S0, PTR_A + 8192), ==, 0);
  g_assert_cmpuint (ts_sanitizer_get_report (san, 1)->freed_ptr, ==, PTR_A);

  /* Freed again untouched by a new kernel: the old access is carried on. */
  ts_sanitizer_alloc (san, PTR_A + 1024, 512, S0, NULL, 0);
  ts_sanitizer_free (san, PTR_A + 1024, NULL, 0);
  ts_sanitizer_alloc (san, PTR_A + 1024, 256, S0, NULL, 0);
  g_assert_cmpuint (write_op (san, S0, PTR_A + 1024), ==, 1);
}

static void
test_schema (void)
{
  const char *max_dim = "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)";
  const char *split = "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]";
  const char *add_out = "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)";
  const char *empty_like = "aten::empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor";
  const char *new_zeros = "aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor";
  const char *view = "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)";
  const char *cat = "aten::cat(Tensor[] tensors, int dim=0) -> Tensor";
  const char *where = "aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor";
  const char *item = "aten::_local_scalar_dense(Tensor self) -> Scalar";

  g_assert_cmpint (ts_sanitizer_schema_arg_kind (SCHEMA_NORMAL, "self"), ==, TS_SANITIZER_ARG_WRITE);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (SCHEMA_NORMAL, "mean"), ==, TS_SANITIZER_ARG_NONE);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (SCHEMA_NORMAL, "generator"), ==, TS_SANITIZER_ARG_NONE);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (SCHEMA_NORMAL, "sel"), ==, TS_SANITIZER_ARG_NONE);
  g_assert_cmpint (ts_sanitizer_schema_output_kind (SCHEMA_NORMAL), ==, TS_SANITIZER_ARG_WRITE);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (SCHEMA_SUM, "self"), ==, TS_SANITIZER_ARG_READ);
  g_assert_cmpint (ts_sanitizer_schema_output_kind (SCHEMA_SUM), ==, TS_SANITIZER_ARG_WRITE);
  g_assert_cmpint (ts_sanitizer_schema_output_kind (max_dim), ==, TS_SANITIZER_ARG_WRITE);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (split, "self"), ==, TS_SANITIZER_ARG_METADATA);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (split, "dim"), ==, TS_SANITIZER_ARG_NONE);
  g_assert_cmpint (ts_sanitizer_schema_output_kind (split), ==, TS_SANITIZER_ARG_METADATA);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (add_out, "self"), ==, TS_SANITIZER_ARG_READ);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (add_out, "other"), ==, TS_SANITIZER_ARG_READ);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (add_out, "out"), ==, TS_SANITIZER_ARG_WRITE);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (add_out, "alpha"), ==, TS_SANITIZER_ARG_NONE);
  g_assert_true (ts_sanitizer_schema_is_factory (empty_like));
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (empty_like, "self"), ==, TS_SANITIZER_ARG_METADATA);
  g_assert_cmpint (ts_sanitizer_schema_output_kind (empty_like), ==, TS_SANITIZER_ARG_METADATA);
  /* Upstream's pattern never matches "aten::new_*": self is read. */
  g_assert_false (ts_sanitizer_schema_is_factory (new_zeros));
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (new_zeros, "self"), ==, TS_SANITIZER_ARG_READ);
  g_assert_true (ts_sanitizer_schema_is_factory ("new_zeros(Tensor self) -> Tensor"));
  g_assert_false (ts_sanitizer_schema_is_factory ("aten::add.like_x(Tensor self) -> Tensor"));
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (view, "self"), ==, TS_SANITIZER_ARG_METADATA);
  g_assert_cmpint (ts_sanitizer_schema_output_kind (view), ==, TS_SANITIZER_ARG_METADATA);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (cat, "tensors"), ==, TS_SANITIZER_ARG_READ);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (where, "condition"), ==, TS_SANITIZER_ARG_READ);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind (where, "other"), ==, TS_SANITIZER_ARG_READ);
  g_assert_cmpint (ts_sanitizer_schema_output_kind (item), ==, TS_SANITIZER_ARG_NONE);
  g_assert_cmpint (ts_sanitizer_schema_output_kind (SCHEMA_EMPTY), ==, TS_SANITIZER_ARG_WRITE);
  g_assert_cmpint (ts_sanitizer_schema_arg_kind ("garbage", "self"), ==, TS_SANITIZER_ARG_NONE);
  g_assert_cmpint (ts_sanitizer_schema_output_kind ("aten::f(Tensor self"), ==, TS_SANITIZER_ARG_NONE);
}

static void
test_args (void)
{
  g_autoptr(TsSanitizerArgs) args = ts_sanitizer_args_new ();
  const TsSanitizerAccess *a;
  guint n;

  /* torch.add (A, A, out=B) with a view V of A passed nowhere: A read once
   * with both names, B written, named and the output. */
  ts_sanitizer_args_add_input (args, PTR_A, "self", TS_SANITIZER_ARG_READ);
  ts_sanitizer_args_add_input (args, PTR_A, "other", TS_SANITIZER_ARG_READ);
  ts_sanitizer_args_add_input (args, PTR_B, "out", TS_SANITIZER_ARG_WRITE);
  ts_sanitizer_args_add_input (args, PTR_C, "self", TS_SANITIZER_ARG_METADATA);
  ts_sanitizer_args_add_input (args, 99, "alpha", TS_SANITIZER_ARG_NONE);
  ts_sanitizer_args_add_output (args, PTR_B, TS_SANITIZER_ARG_WRITE);
  a = ts_sanitizer_args_get_accesses (args, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (a[0].data_ptr, ==, PTR_A);
  g_assert_false (a[0].is_write);
  g_assert_false (a[0].is_output);
  g_assert_cmpstr (a[0].names, ==, "self, other");
  g_assert_cmpuint (a[1].data_ptr, ==, PTR_B);
  g_assert_true (a[1].is_write);
  g_assert_true (a[1].is_output);
  g_assert_cmpstr (a[1].names, ==, "out");

  /* Reset and reuse: a pointer read and written is only written; a view
   * output of a read input makes a read "to the output". */
  ts_sanitizer_args_reset (args);
  ts_sanitizer_args_add_input (args, PTR_B, "self", TS_SANITIZER_ARG_WRITE);
  ts_sanitizer_args_add_input (args, PTR_B, "other", TS_SANITIZER_ARG_READ);
  ts_sanitizer_args_add_input (args, PTR_A, "input", TS_SANITIZER_ARG_READ);
  ts_sanitizer_args_add_output (args, PTR_A, TS_SANITIZER_ARG_METADATA);
  a = ts_sanitizer_args_get_accesses (args, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (a[0].data_ptr, ==, PTR_A);
  g_assert_false (a[0].is_write);
  g_assert_true (a[0].is_output);
  g_assert_cmpstr (a[0].names, ==, "input");
  g_assert_cmpuint (a[1].data_ptr, ==, PTR_B);
  g_assert_true (a[1].is_write);
  g_assert_false (a[1].is_output);
  g_assert_cmpstr (a[1].names, ==, "self, other");

  /* A factory op: nothing but its output. */
  ts_sanitizer_args_reset (args);
  ts_sanitizer_args_add_input (args, PTR_A, "self", TS_SANITIZER_ARG_METADATA);
  ts_sanitizer_args_add_output (args, PTR_C, TS_SANITIZER_ARG_WRITE);
  a = ts_sanitizer_args_get_accesses (args, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (a[0].data_ptr, ==, PTR_C);
  g_assert_cmpstr (a[0].names, ==, "");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sanitizer/seed-04", test_seed_04);
  g_test_add_func ("/sanitizer/seed-05", test_seed_05);
  g_test_add_func ("/sanitizer/report-text", test_report_text);
  g_test_add_func ("/sanitizer/recorder", test_recorder);
  g_test_add_func ("/sanitizer/report-text-variants", test_report_text_variants);
  g_test_add_func ("/sanitizer/format-stack", test_format_stack);
  g_test_add_func ("/sanitizer/sync-suppresses", test_sync_suppresses);
  g_test_add_func ("/sanitizer/sync-does-not-suppress", test_sync_does_not_suppress);
  g_test_add_func ("/sanitizer/event-rerecord", test_event_rerecord);
  g_test_add_func ("/sanitizer/write-after-reads", test_write_after_reads);
  g_test_add_func ("/sanitizer/reads-only", test_reads_only);
  g_test_add_func ("/sanitizer/aliases-and-new-stream", test_aliases_and_new_stream);
  g_test_add_func ("/sanitizer/backfill-tensor", test_backfill_tensor);
  g_test_add_func ("/sanitizer/reuse-without-record-stream", test_reuse_without_record_stream);
  g_test_add_func ("/sanitizer/reuse-record-stream", test_reuse_record_stream);
  g_test_add_func ("/sanitizer/reuse-ordered", test_reuse_ordered);
  g_test_add_func ("/sanitizer/reuse-split-block", test_reuse_split_block);
  g_test_add_func ("/sanitizer/schema", test_schema);
  g_test_add_func ("/sanitizer/args", test_args);

  return g_test_run ();
}
