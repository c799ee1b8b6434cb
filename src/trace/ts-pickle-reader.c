/* ts-pickle-reader.c: a streaming reader for the pickles PyTorch writes
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Written by hand: Debian has no C library for Python's pickle format, and
 * a generic unpickler would build the whole object graph in memory, which
 * the importer must not do for gigabyte snapshots. This is the subset of
 * the pickle VM that pickle (protocols 2 to 5) and torch::jit::Pickler
 * emit for plain data: PROTO, FRAME, the memo (MEMOIZE, BINPUT,
 * LONG_BINPUT, BINGET, LONG_BINGET), MARK, dicts, lists, tuples, sets,
 * str/bytes of every length class, the binary ints, LONG1/LONG4, BINFLOAT,
 * bools and None, POP/POP_MARK/DUP, STOP. GLOBAL, REDUCE and the other
 * object-building opcodes are refused: a snapshot never has them, and
 * they are how pickles run code.
 *
 * Streaming: the items of root["segments"] and of root["device_traces"][d]
 * are handed to a callback as soon as each is complete (when the next
 * sibling starts, or at APPEND/APPENDS) and dropped, with their memo slot,
 * so memory follows the shared values (keys, frames lists) and not the
 * number of entries. Every length, memo index and the stack are bounded;
 * nothing recurses, so deep nesting costs only stack slots.
 */

#include "config.h"

#include <string.h>

#include "ts-pickle-reader.h"

#define MAX_STRING      (256u << 20)   /* one str/bytes */
#define MAX_LONG_BYTES  4096u          /* LONG4 payload */
#define MAX_STACK       (64u << 20)    /* values on the VM stack */
#define MAX_MEMO_GAP    4096u          /* BINPUT beyond the memo's end */
#define MAX_DEVICES     256u

enum
{
  ROLE_NONE = 0,
  ROLE_ROOT,
  ROLE_SEGMENTS,       /* streamed list of segments */
  ROLE_DEVICE_TRACES,
  ROLE_TRACE_LIST,     /* streamed list of trace entries; flags = device */
  ROLE_STREAM_ITEM,    /* a dict that is an item of a streamed list */
};

/* The VM stack: a plain growable array, pushed and popped inline (it is
 * the hottest structure of a big snapshot). Only ever shrinks by len. */
typedef struct
{
  gpointer *pdata;
  guint     len;
  guint     cap;
} Stack;

static inline void
stack_push (Stack   *st,
            gpointer v)
{
  if (G_UNLIKELY (st->len == st->cap))
    {
      st->cap = MAX (64, st->cap * 2);
      st->pdata = g_renew (gpointer, st->pdata, st->cap);
    }
  st->pdata[st->len++] = v;
}

typedef struct
{
  TsImportInput   *in;
  Stack           *stack;    /* TsValue*, MARK as the mark sentinel */
  GPtrArray       *memo;     /* TsValue* or NULL */
  TsPickleItemFunc func;
  gpointer         user_data;
  TsValue         *none;     /* what a dropped stream item's memo slot holds */
} Vm;

static TsValue mark_sentinel;
#define MARK (&mark_sentinel)

static gboolean
fail (GError    **error,
      gint        code,
      Vm         *vm,
      const char *format,
      ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail (GError    **error,
      gint        code,
      Vm         *vm,
      const char *format,
      ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, TS_IMPORT_ERROR, code, "pickle: %s (at byte %" G_GUINT64_FORMAT ")",
               msg, ts_import_input_offset (vm->in));
  return FALSE;
}

static gboolean
need_slow (Vm      *vm,
           gsize    n,
           GError **error)
{
  if (ts_import_input_fill (vm->in, n) >= n)
    return TRUE;
  if (ts_import_input_failed (vm->in, error))
    return FALSE;
  return fail (error, TS_IMPORT_ERROR_TRUNCATED, vm, "the file ends in the middle of the data");
}

/* Every opcode asks for its bytes: the common case, already buffered,
 * stays inline. */
static inline gboolean
need (Vm      *vm,
      gsize    n,
      GError **error)
{
  if (G_LIKELY (vm->in->len - vm->in->pos >= n))
    return TRUE;
  return need_slow (vm, n, error);
}

static guint64
read_le (Vm   *vm,
         guint n)
{
  guint64 v = 0;

  for (guint i = 0; i < n; i++)
    v |= (guint64) vm->in->data[vm->in->pos + i] << (8 * i);
  vm->in->pos += n;
  return v;
}

static gboolean
push_over_limit (Vm       *vm,
                 TsValue  *v,
                 GError  **error)
{
  if (v != MARK)
    ts_value_unref (v);
  return fail (error, TS_IMPORT_ERROR_LIMIT, vm, "too many values on the stack (over %u)", MAX_STACK);
}

static inline gboolean
push (Vm       *vm,
      TsValue  *v,
      GError  **error)
{
  if (G_UNLIKELY (vm->stack->len >= MAX_STACK))
    return push_over_limit (vm, v, error);
  stack_push (vm->stack, v);
  return TRUE;
}

static TsValue *
top (Vm *vm)
{
  return vm->stack->len > 0 ? vm->stack->pdata[vm->stack->len - 1] : NULL;
}

/* Pops a value (not a mark); NULL with an error on underflow. */
static TsValue *
pop (Vm      *vm,
     GError **error)
{
  TsValue *v;

  if (vm->stack->len == 0 || top (vm) == MARK)
    {
      fail (error, TS_IMPORT_ERROR_CORRUPT, vm, "stack underflow");
      return NULL;
    }
  v = vm->stack->pdata[vm->stack->len - 1];
  vm->stack->len--;
  return v;
}

/* Position of the topmost mark, or -1. */
static gssize
find_mark (Vm *vm)
{
  for (gssize i = (gssize) vm->stack->len - 1; i >= 0; i--)
    if (vm->stack->pdata[i] == MARK)
      return i;
  return -1;
}

static gboolean
is_streamed (const TsValue *list)
{
  return list != NULL && list != MARK && list->type == TS_VALUE_LIST &&
         (list->role == ROLE_SEGMENTS || list->role == ROLE_TRACE_LIST);
}

/* Hands a complete item of a streamed list to the callback and drops it,
 * memo slot included (a later reference to it reads None). */
static gboolean
emit (Vm      *vm,
      TsValue *list,
      TsValue *item,
      GError **error)
{
  gboolean ok;

  /* aux: the memo slot + 1 that holds the item (see memo_put) */
  if (item->type == TS_VALUE_DICT && item->aux != 0)
    {
      guint idx = item->aux - 1;

      item->aux = 0;
      if (idx < vm->memo->len && vm->memo->pdata[idx] == item)
        {
          vm->memo->pdata[idx] = ts_value_ref (vm->none);
          ts_value_unref (item);
        }
    }
  ok = vm->func (vm->user_data, list->role == ROLE_SEGMENTS ? TS_PICKLE_SEGMENT : TS_PICKLE_TRACE_ENTRY,
                 list->role == ROLE_TRACE_LIST ? list->flags : 0, item, error);
  ts_value_unref (item);
  return ok;
}

/* Before a new item starts: if the top of the stack is a finished item of
 * a streamed list (it sits just above the list's MARK), emit it. */
static gboolean
flush (Vm      *vm,
       GError **error)
{
  guint n = vm->stack->len;
  TsValue *t;

  if (n < 3)
    return TRUE;
  t = vm->stack->pdata[n - 1];
  if (t == MARK || vm->stack->pdata[n - 2] != MARK || !is_streamed (vm->stack->pdata[n - 3]))
    return TRUE;
  vm->stack->len = n - 1;
  return emit (vm, vm->stack->pdata[n - 3], t, error);
}

/* Is the string on top of the stack a key of the root dict? */
static gboolean
top_is_root_key (Vm *vm)
{
  guint n = vm->stack->len;
  TsValue *root = n > 0 ? vm->stack->pdata[0] : NULL;

  if (root == NULL || root == MARK || root->role != ROLE_ROOT || n < 2 ||
      top (vm) == MARK || top (vm)->type != TS_VALUE_STRING)
    return FALSE;
  if (n == 2)
    return TRUE;
  return vm->stack->pdata[1] == MARK && find_mark (vm) == 1 && (n - 2) % 2 == 1;
}

/* The role of a new container, from where it is being built. */
static void
assign_role (Vm      *vm,
             TsValue *v)
{
  guint n = vm->stack->len;
  TsValue *t = top (vm);

  if (n == 0)
    {
      v->role = v->type == TS_VALUE_DICT ? ROLE_ROOT : ROLE_SEGMENTS;
      return;
    }
  if (v->type == TS_VALUE_LIST && top_is_root_key (vm))
    {
      if (ts_value_is_str (t, "segments"))
        v->role = ROLE_SEGMENTS;
      else if (ts_value_is_str (t, "device_traces"))
        v->role = ROLE_DEVICE_TRACES;
      return;
    }
  if (v->type == TS_VALUE_LIST)
    {
      /* An item of device_traces: skip earlier sibling lists to the mark. */
      gssize i = (gssize) n - 1;
      guint siblings = 0;
      TsValue *dt;

      while (i >= 0 && vm->stack->pdata[i] != MARK &&
             ((TsValue *) vm->stack->pdata[i])->role == ROLE_TRACE_LIST)
        i--, siblings++;
      if (i >= 0 && vm->stack->pdata[i] == MARK)
        {
          dt = i >= 1 ? vm->stack->pdata[i - 1] : NULL;
        }
      else if (siblings == 0 && i >= 0)
        dt = vm->stack->pdata[i];      /* APPEND without a mark */
      else
        dt = NULL;
      if (dt != NULL && dt != MARK && dt->role == ROLE_DEVICE_TRACES &&
          dt->items->len + siblings < MAX_DEVICES)
        {
          v->role = ROLE_TRACE_LIST;
          v->flags = (guint8) (dt->items->len + siblings);
        }
      return;
    }
  if (v->type == TS_VALUE_DICT)
    {
      if (is_streamed (t) || (t == MARK && n >= 2 && is_streamed (vm->stack->pdata[n - 2])))
        v->role = ROLE_STREAM_ITEM;
    }
}

static gboolean
push_container (Vm          *vm,
                TsValueType  type,
                GError     **error)
{
  TsValue *v = ts_value_new (type);

  assign_role (vm, v);
  return push (vm, v, error);
}

static gboolean
memo_put (Vm      *vm,
          guint64  idx,
          GError **error)
{
  TsValue *v = top (vm);

  if (v == NULL || v == MARK)
    return fail (error, TS_IMPORT_ERROR_CORRUPT, vm, "memoizing an empty stack");
  if (idx > (guint64) vm->memo->len + MAX_MEMO_GAP)
    return fail (error, TS_IMPORT_ERROR_CORRUPT, vm, "memo index %" G_GUINT64_FORMAT " out of range", idx);
  if (idx >= vm->memo->len)
    g_ptr_array_set_size (vm->memo, (guint) idx + 1);
  if (vm->memo->pdata[idx] != NULL)
    ts_value_unref (vm->memo->pdata[idx]);
  vm->memo->pdata[idx] = ts_value_ref (v);
  if (v->role == ROLE_STREAM_ITEM && v->type == TS_VALUE_DICT && idx < G_MAXUINT32)
    v->aux = (guint32) idx + 1;
  return TRUE;
}

static gboolean
memo_get (Vm      *vm,
          guint64  idx,
          GError **error)
{
  TsValue *v;

  if (idx >= vm->memo->len || (v = vm->memo->pdata[idx]) == NULL)
    return fail (error, TS_IMPORT_ERROR_CORRUPT, vm, "memo reference %" G_GUINT64_FORMAT " out of range", idx);
  return push (vm, ts_value_ref (v), error);
}

static gboolean
read_string (Vm      *vm,
             guint    len_bytes,
             GError **error)
{
  guint64 len;

  if (!need (vm, len_bytes, error))
    return FALSE;
  len = read_le (vm, len_bytes);
  if (len > MAX_STRING)
    return fail (error, TS_IMPORT_ERROR_LIMIT, vm, "a string of %" G_GUINT64_FORMAT " bytes (over the %u MiB limit)",
                 len, MAX_STRING >> 20);
  if (!need (vm, (gsize) len, error))
    return FALSE;
  if (!push (vm, ts_value_new_string ((const char *) vm->in->data + vm->in->pos, (gsize) len), error))
    return FALSE;
  vm->in->pos += (gsize) len;
  return TRUE;
}

/* n-byte two's-complement little-endian; values beyond 64 bits keep their
 * low 64 bits and are flagged big. */
static gboolean
read_long (Vm      *vm,
           guint64  n,
           GError **error)
{
  const guint8 *p;
  guint64 v = 0;
  TsValue *val;
  gboolean negative;

  if (n > MAX_LONG_BYTES)
    return fail (error, TS_IMPORT_ERROR_LIMIT, vm, "an integer of %" G_GUINT64_FORMAT " bytes", n);
  if (!need (vm, (gsize) n, error))
    return FALSE;
  p = vm->in->data + vm->in->pos;
  negative = n > 0 && (p[n - 1] & 0x80);
  for (guint i = 0; i < 8; i++)
    {
      guint8 byte = i < n ? p[i] : (negative ? 0xff : 0);
      v |= (guint64) byte << (8 * i);
    }
  val = ts_value_new_int ((gint64) v);
  if (n > 8)
    {
      /* Fits if the extra bytes only sign-extend. */
      guint8 ext = (p[7] & 0x80) ? 0xff : 0;
      for (guint64 i = 8; i < n; i++)
        if (p[i] != ext)
          val->big = TRUE;
    }
  vm->in->pos += (gsize) n;
  return push (vm, val, error);
}

static gboolean
pop_to_mark (Vm         *vm,
             GPtrArray **items,
             GError    **error)
{
  gssize m = find_mark (vm);

  if (m < 0)
    return fail (error, TS_IMPORT_ERROR_CORRUPT, vm, "no mark on the stack");
  *items = g_ptr_array_new_with_free_func ((GDestroyNotify) ts_value_unref);
  for (guint i = (guint) m + 1; i < vm->stack->len; i++)
    g_ptr_array_add (*items, vm->stack->pdata[i]);
  vm->stack->len = (guint) m;
  return TRUE;
}

static gboolean
add_items (Vm        *vm,
           TsValue   *container,
           GPtrArray *items,
           GError   **error)
{
  if (container == MARK || (container->type != TS_VALUE_LIST && container->type != TS_VALUE_DICT))
    return fail (error, TS_IMPORT_ERROR_CORRUPT, vm, "adding items to a value that is not a container");
  if (container->type == TS_VALUE_DICT && items->len % 2 != 0)
    return fail (error, TS_IMPORT_ERROR_CORRUPT, vm, "a dict item without a value");
  for (guint i = 0; i < items->len; i++)
    {
      TsValue *it = items->pdata[i];
      items->pdata[i] = NULL;
      if (is_streamed (container) && it->type == TS_VALUE_DICT)
        {
          if (!emit (vm, container, it, error))
            return FALSE;
        }
      else
        ts_value_append (container, it);
    }
  return TRUE;
}

static gboolean
make_list (Vm         *vm,
           GPtrArray  *items,
           GError    **error)
{
  TsValue *v = ts_value_new (TS_VALUE_LIST);

  for (guint i = 0; i < items->len; i++)
    {
      ts_value_append (v, items->pdata[i]);
      items->pdata[i] = NULL;
    }
  return push (vm, v, error);
}

gboolean
ts_pickle_read (TsImportInput    *in,
                TsPickleItemFunc  func,
                gpointer          user_data,
                TsValue         **root,
                GError          **error)
{
  Vm vm = { 0 };
  gboolean ok = FALSE, first = TRUE;

  vm.in = in;
  vm.stack = g_new0 (Stack, 1);
  vm.memo = g_ptr_array_new ();
  vm.func = func;
  vm.user_data = user_data;
  vm.none = ts_value_new (TS_VALUE_NONE);

  for (;;)
    {
      guint8 op;

      if (!need (&vm, 1, error))
        goto out;
      op = in->data[in->pos++];
      if (first && op != 0x80)
        {
          fail (error, TS_IMPORT_ERROR_FORMAT, &vm, "not a pickle of protocol 2 or later");
          goto out;
        }
      first = FALSE;
      switch (op)
        {
        case 0x80: /* PROTO */
          {
            guint8 proto;
            if (!need (&vm, 1, error))
              goto out;
            proto = in->data[in->pos++];
            if (proto < 2 || proto > 5)
              {
                fail (error, TS_IMPORT_ERROR_FORMAT, &vm, "unsupported protocol %u (2 to 5 are)", proto);
                goto out;
              }
          }
          break;
        case 0x95: /* FRAME */
          if (!need (&vm, 8, error))
            goto out;
          in->pos += 8;
          break;
        case 0x94: /* MEMOIZE */
          if (!memo_put (&vm, vm.memo->len, error))
            goto out;
          break;
        case 'q': /* BINPUT */
          if (!need (&vm, 1, error) || !memo_put (&vm, read_le (&vm, 1), error))
            goto out;
          break;
        case 'r': /* LONG_BINPUT */
          if (!need (&vm, 4, error) || !memo_put (&vm, read_le (&vm, 4), error))
            goto out;
          break;
        case 'h': /* BINGET */
          if (!need (&vm, 1, error) || !memo_get (&vm, read_le (&vm, 1), error))
            goto out;
          break;
        case 'j': /* LONG_BINGET */
          if (!need (&vm, 4, error) || !memo_get (&vm, read_le (&vm, 4), error))
            goto out;
          break;
        case '(': /* MARK */
          if (!push (&vm, MARK, error))
            goto out;
          break;
        case '}': /* EMPTY_DICT */
          if (!flush (&vm, error) || !push_container (&vm, TS_VALUE_DICT, error))
            goto out;
          break;
        case ']': /* EMPTY_LIST */
        case 0x8f: /* EMPTY_SET */
          if (!push_container (&vm, TS_VALUE_LIST, error))
            goto out;
          break;
        case ')': /* EMPTY_TUPLE */
          if (!push (&vm, ts_value_new (TS_VALUE_LIST), error))
            goto out;
          break;
        case 'd': /* DICT */
        case 'l': /* LIST */
        case 't': /* TUPLE */
        case 0x91: /* FROZENSET */
          {
            g_autoptr(GPtrArray) items = NULL;
            if (!pop_to_mark (&vm, &items, error))
              goto out;
            if (op == 'd')
              {
                TsValue *d;
                if (items->len % 2 != 0)
                  {
                    fail (error, TS_IMPORT_ERROR_CORRUPT, &vm, "a dict item without a value");
                    goto out;
                  }
                d = ts_value_new (TS_VALUE_DICT);
                for (guint i = 0; i < items->len; i++)
                  {
                    ts_value_append (d, items->pdata[i]);
                    items->pdata[i] = NULL;
                  }
                if (!push (&vm, d, error))
                  goto out;
              }
            else if (!make_list (&vm, items, error))
              goto out;
          }
          break;
        case 0x85: /* TUPLE1 */
        case 0x86: /* TUPLE2 */
        case 0x87: /* TUPLE3 */
          {
            guint k = op - 0x84;
            g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) ts_value_unref);
            g_ptr_array_set_size (items, k);
            for (guint i = k; i-- > 0;)
              if ((items->pdata[i] = pop (&vm, error)) == NULL)
                goto out;
            if (!make_list (&vm, items, error))
              goto out;
          }
          break;
        case 's': /* SETITEM */
        case 'a': /* APPEND */
          {
            guint k = op == 's' ? 2 : 1;
            g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) ts_value_unref);
            TsValue *c;
            g_ptr_array_set_size (items, k);
            for (guint i = k; i-- > 0;)
              if ((items->pdata[i] = pop (&vm, error)) == NULL)
                goto out;
            c = top (&vm);
            if (c == NULL || !add_items (&vm, c, items, error))
              {
                if (c == NULL)
                  fail (error, TS_IMPORT_ERROR_CORRUPT, &vm, "stack underflow");
                goto out;
              }
          }
          break;
        case 'u': /* SETITEMS */
        case 'e': /* APPENDS */
        case 0x90: /* ADDITEMS */
          {
            /* Straight from the stack into the container (no copy of
             * the items): this is most of a snapshot's work. */
            gssize m = find_mark (&vm);
            TsValue *c;
            guint from, n;

            if (m < 1)
              {
                fail (error, TS_IMPORT_ERROR_CORRUPT, &vm, m < 0 ? "no mark on the stack" : "stack underflow");
                goto out;
              }
            c = vm.stack->pdata[m - 1];
            from = (guint) m + 1;
            n = vm.stack->len - from;
            if (c == MARK || (c->type != TS_VALUE_LIST && c->type != TS_VALUE_DICT) ||
                (c->type == TS_VALUE_DICT && n % 2 != 0))
              {
                fail (error, TS_IMPORT_ERROR_CORRUPT, &vm, c != MARK && c->type == TS_VALUE_DICT
                      ? "a dict item without a value" : "adding items to a value that is not a container");
                goto out;
              }
            if (is_streamed (c))
              {
                for (guint i = from; i < vm.stack->len; i++)
                  {
                    TsValue *it = vm.stack->pdata[i];
                    vm.stack->pdata[i] = NULL;
                    if (it->type == TS_VALUE_DICT)
                      {
                        if (!emit (&vm, c, it, error))
                          goto out;   /* the rest is released at out: */
                      }
                    else
                      ts_value_append (c, it);
                  }
              }
            else if (n > 0)
              {
                guint old = c->items->len;
                g_ptr_array_set_size (c->items, old + n);
                memcpy (c->items->pdata + old, vm.stack->pdata + from, n * sizeof (gpointer));
              }
            vm.stack->len = (guint) m;
          }
          break;
        case 0x8c: /* SHORT_BINUNICODE */
        case 'C':  /* SHORT_BINBYTES */
          if (!read_string (&vm, 1, error))
            goto out;
          break;
        case 'X': /* BINUNICODE */
        case 'B': /* BINBYTES */
          if (!read_string (&vm, 4, error))
            goto out;
          break;
        case 0x8d: /* BINUNICODE8 */
        case 0x8e: /* BINBYTES8 */
        case 0x96: /* BYTEARRAY8 */
          if (!read_string (&vm, 8, error))
            goto out;
          break;
        case 'K': /* BININT1 */
          if (!need (&vm, 1, error) || !push (&vm, ts_value_new_int ((gint64) read_le (&vm, 1)), error))
            goto out;
          break;
        case 'M': /* BININT2 */
          if (!need (&vm, 2, error) || !push (&vm, ts_value_new_int ((gint64) read_le (&vm, 2)), error))
            goto out;
          break;
        case 'J': /* BININT */
          if (!need (&vm, 4, error) || !push (&vm, ts_value_new_int ((gint32) (guint32) read_le (&vm, 4)), error))
            goto out;
          break;
        case 0x8a: /* LONG1 */
          if (!need (&vm, 1, error) || !read_long (&vm, read_le (&vm, 1), error))
            goto out;
          break;
        case 0x8b: /* LONG4 */
          {
            gint32 n;
            if (!need (&vm, 4, error))
              goto out;
            n = (gint32) (guint32) read_le (&vm, 4);
            if (n < 0)
              {
                fail (error, TS_IMPORT_ERROR_CORRUPT, &vm, "negative LONG4 length");
                goto out;
              }
            if (!read_long (&vm, (guint64) n, error))
              goto out;
          }
          break;
        case 'G': /* BINFLOAT, big-endian */
          {
            guint64 bits = 0;
            double f;
            if (!need (&vm, 8, error))
              goto out;
            for (guint i = 0; i < 8; i++)
              bits = (bits << 8) | in->data[in->pos + i];
            in->pos += 8;
            memcpy (&f, &bits, sizeof f);
            if (!push (&vm, ts_value_new_float (f), error))
              goto out;
          }
          break;
        case 0x88: /* NEWTRUE */
        case 0x89: /* NEWFALSE */
          if (!push (&vm, ts_value_new_bool (op == 0x88), error))
            goto out;
          break;
        case 'N': /* NONE */
          if (!push (&vm, ts_value_new (TS_VALUE_NONE), error))
            goto out;
          break;
        case '0': /* POP */
          if (vm.stack->len == 0)
            {
              fail (error, TS_IMPORT_ERROR_CORRUPT, &vm, "stack underflow");
              goto out;
            }
          if (top (&vm) != MARK)
            ts_value_unref (top (&vm));
          vm.stack->len--;
          break;
        case '1': /* POP_MARK */
          {
            g_autoptr(GPtrArray) items = NULL;
            if (!pop_to_mark (&vm, &items, error))
              goto out;
          }
          break;
        case '2': /* DUP */
          if (vm.stack->len == 0 || top (&vm) == MARK)
            {
              fail (error, TS_IMPORT_ERROR_CORRUPT, &vm, "stack underflow");
              goto out;
            }
          if (!push (&vm, ts_value_ref (top (&vm)), error))
            goto out;
          break;
        case '.': /* STOP */
          {
            TsValue *r;
            if (vm.stack->len != 1 || top (&vm) == MARK)
              {
                fail (error, TS_IMPORT_ERROR_CORRUPT, &vm, "STOP with %u values on the stack", vm.stack->len);
                goto out;
              }
            r = vm.stack->pdata[0];
            vm.stack->len = 0;
            if (root != NULL)
              *root = r;
            else
              ts_value_unref (r);
            ok = TRUE;
            goto out;
          }
        default:
          fail (error, TS_IMPORT_ERROR_CORRUPT, &vm, "unsupported opcode 0x%02x", op);
          goto out;
        }
    }

out:
  for (guint i = 0; i < vm.stack->len; i++)
    if (vm.stack->pdata[i] != MARK)
      ts_value_unref (vm.stack->pdata[i]);
  g_free (vm.stack->pdata);
  g_free (vm.stack);
  for (guint i = 0; i < vm.memo->len; i++)
    if (vm.memo->pdata[i] != NULL)
      ts_value_unref (vm.memo->pdata[i]);
  g_ptr_array_unref (vm.memo);
  ts_value_unref (vm.none);
  return ok;
}
