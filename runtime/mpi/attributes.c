/* Attributes cached on communicators: key values (MPI-1 Keyval_create and MPI-2
 * Comm_create_keyval: one table), Attr_put/get/delete, copying at MPI_Comm_dup and
 * deletion at MPI_Comm_free through the user's callbacks, and the predefined attributes
 * (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL). */
#include <stdlib.h>

#include "mpi_internal.h"

enum { FIRST_USER_KEY = 16 };

typedef struct {
  MPI_Copy_function *copy;
  MPI_Delete_function *del;
  void *extra;
  int refs; /* the handle, and each attribute that uses it */
} keyval;
static keyval *keyvals; /* by key - FIRST_USER_KEY */
static int keyval_count;

typedef struct attr_node {
  struct attr_node *next;
  int key;
  void *value;
} attr_node;

static keyval *key_get(int key) {
  const int k = key - FIRST_USER_KEY;
  return k >= 0 && k < keyval_count && keyvals[k].refs ? &keyvals[k] : 0;
}

static void key_unref(int key) {
  keyval *kv = &keyvals[key - FIRST_USER_KEY];
  --kv->refs;
}

/* Each MPI-2 call and its MPI-1 name share the code; errors name the call made. */
static int create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                         int *key, void *extra, const char *fn) {
  MPI_REQUIRE_INIT(fn);
  int k = 0;
  while (k < keyval_count && keyvals[k].refs) ++k;
  if (k == keyval_count) {
    keyval *t = realloc(keyvals, (keyval_count + 8) * sizeof *t);
    if (!t) return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "no memory");
    for (int j = keyval_count; j < keyval_count + 8; ++j) t[j].refs = 0;
    keyvals = t;
    keyval_count += 8;
  }
  keyvals[k] = (keyval){copy, del, extra, 1};
  *key = FIRST_USER_KEY + k;
  return MPI_SUCCESS;
}
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                           int *key, void *extra) {
  return create_keyval(copy, del, key, extra, "MPI_Comm_create_keyval");
}
int MPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *key, void *extra) {
  return create_keyval(copy, del, key, extra, "MPI_Keyval_create");
}

static int free_keyval(int *key, const char *fn) {
  if (!key_get(*key)) return mpi_error(MPI_COMM_WORLD, MPI_ERR_KEYVAL, fn, "invalid key %d", *key);
  key_unref(*key); /* attributes that use it keep it until they go */
  *key = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
int MPI_Comm_free_keyval(int *key) { return free_keyval(key, "MPI_Comm_free_keyval"); }
int MPI_Keyval_free(int *key) { return free_keyval(key, "MPI_Keyval_free"); }

static attr_node **find(mpi_comm *c, int key) {
  attr_node **p = &c->attrs;
  while (*p && (*p)->key != key) p = &(*p)->next;
  return p;
}

/* Removes the attribute at *p, calling its delete function. */
static int remove_attr(MPI_Comm comm, attr_node **p, const char *fn) {
  attr_node *a = *p;
  keyval *kv = &keyvals[a->key - FIRST_USER_KEY];
  if (kv->del) {
    const int rc = kv->del(comm, a->key, a->value, kv->extra);
    if (rc != MPI_SUCCESS)
      return mpi_error(comm, rc, fn, "the delete function of key %d returned %d", a->key, rc);
  }
  *p = a->next;
  key_unref(a->key);
  free(a);
  return MPI_SUCCESS;
}

static int check_user_key(MPI_Comm comm, const char *fn, int key) {
  if (key > 0 && key < FIRST_USER_KEY)
    return mpi_error(comm, MPI_ERR_KEYVAL, fn, "key %d is predefined (read-only)", key);
  if (!key_get(key)) return mpi_error(comm, MPI_ERR_KEYVAL, fn, "invalid key %d", key);
  return MPI_SUCCESS;
}

static int set_attr(MPI_Comm comm, int key, void *value, const char *fn) {
  mpi_comm *c;
  int err = check_comm(comm, fn, &c);
  if (!err) err = check_user_key(comm, fn, key);
  if (err) return err;
  attr_node **p = find(c, key);
  if (*p && (err = remove_attr(comm, p, fn))) return err;
  attr_node *a = malloc(sizeof *a);
  if (!a) return mpi_error(comm, MPI_ERR_NO_MEM, fn, "no memory");
  *a = (attr_node){c->attrs, key, value};
  c->attrs = a;
  ++keyvals[key - FIRST_USER_KEY].refs;
  return MPI_SUCCESS;
}
int MPI_Comm_set_attr(MPI_Comm comm, int key, void *value) {
  return set_attr(comm, key, value, "MPI_Comm_set_attr");
}
int MPI_Attr_put(MPI_Comm comm, int key, void *value) {
  return set_attr(comm, key, value, "MPI_Attr_put");
}

static int get_attr(MPI_Comm comm, int key, void *value, int *flag, const char *fn) {
  static int tag_ub = MPI_TAG_UB_VALUE, host = MPI_PROC_NULL, io, global = 0;
  mpi_comm *c;
  const int err = check_comm(comm, fn, &c);
  if (err) return err;
  int *v = 0;
  switch (key) {
    case MPI_TAG_UB: v = &tag_ub; break;
    case MPI_HOST: v = &host; break;
    case MPI_IO: io = c->rank; v = &io; break;
    case MPI_WTIME_IS_GLOBAL: v = &global; break; /* every PE counts its own clocks */
    default: break;
  }
  if (v) {
    *(int **)value = v;
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (!key_get(key) && !(key >= FIRST_USER_KEY && key - FIRST_USER_KEY < keyval_count))
    return mpi_error(comm, MPI_ERR_KEYVAL, fn, "invalid key %d", key);
  attr_node *a = *find(c, key);
  *flag = a != 0;
  if (a) *(void **)value = a->value;
  return MPI_SUCCESS;
}
int MPI_Comm_get_attr(MPI_Comm comm, int key, void *value, int *flag) {
  return get_attr(comm, key, value, flag, "MPI_Comm_get_attr");
}
int MPI_Attr_get(MPI_Comm comm, int key, void *value, int *flag) {
  return get_attr(comm, key, value, flag, "MPI_Attr_get");
}

static int delete_attr(MPI_Comm comm, int key, const char *fn) {
  mpi_comm *c;
  int err = check_comm(comm, fn, &c);
  if (!err) err = check_user_key(comm, fn, key);
  if (err) return err;
  attr_node **p = find(c, key);
  if (!*p) return mpi_error(comm, MPI_ERR_KEYVAL, fn, "no attribute with key %d", key);
  return remove_attr(comm, p, fn);
}
int MPI_Comm_delete_attr(MPI_Comm comm, int key) {
  return delete_attr(comm, key, "MPI_Comm_delete_attr");
}
int MPI_Attr_delete(MPI_Comm comm, int key) { return delete_attr(comm, key, "MPI_Attr_delete"); }

int attrs_copy(MPI_Comm oldcomm, const mpi_comm *from, mpi_comm *to) {
  for (const attr_node *a = from->attrs; a; a = a->next) {
    keyval *kv = &keyvals[a->key - FIRST_USER_KEY];
    void *out = 0;
    int flag = 0;
    if (kv->copy) {
      const int rc = kv->copy(oldcomm, a->key, kv->extra, a->value, &out, &flag);
      if (rc != MPI_SUCCESS)
        return mpi_error(oldcomm, rc, "MPI_Comm_dup", "the copy function of key %d returned %d",
                         a->key, rc);
    }
    if (!flag) continue;
    attr_node *n = malloc(sizeof *n);
    if (!n) return mpi_error(oldcomm, MPI_ERR_NO_MEM, "MPI_Comm_dup", "no memory");
    *n = (attr_node){to->attrs, a->key, out};
    to->attrs = n;
    ++kv->refs;
  }
  return MPI_SUCCESS;
}

int attrs_delete_all(MPI_Comm comm, mpi_comm *c) {
  while (c->attrs) {
    const int err = remove_attr(comm, &c->attrs, "MPI_Comm_free");
    if (err) return err;
  }
  return MPI_SUCCESS;
}

/* The predefined copy and delete functions. */
int MPI_NULL_COPY_FN(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag) {
  (void)comm, (void)key, (void)extra, (void)in, (void)out;
  *flag = 0;
  return MPI_SUCCESS;
}
int MPI_DUP_FN(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag) {
  (void)comm, (void)key, (void)extra;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}
int MPI_NULL_DELETE_FN(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm, (void)key, (void)value, (void)extra;
  return MPI_SUCCESS;
}
