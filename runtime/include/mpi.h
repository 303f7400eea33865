/* MPI for the simulated EM-X: MPI-EMX (runtime/mpi/, docs/mpi.md).
 *
 * One rank per PE; MPI_COMM_WORLD is every PE, rank = PE number. Point-to-point
 * messages are matched on the sender's PE when the receive was posted in advance (the
 * send is then one remote memory write into the receive buffer) and on the receiver's
 * PE otherwise, by one of three protocols. The variant is chosen at run time by program
 * arguments that MPI_Init consumes:
 *     -mpi-matching=both|receiver     (default both)
 *     -mpi-protocol=buffered|get|sync (default get)
 *
 * The subset of MPI-1 (and a few MPI-2 names) that ordinary C programs use; handles are
 * integers except MPI_Request. Built with scripts/emx-mpicc or emx_add_mpi_program. */
#ifndef EMX_MPI_H
#define EMX_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 1
#define MPI_SUBVERSION 3

/* ---- Handles ------------------------------------------------------------------- */

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Group;
typedef struct mpi_request_handle *MPI_Request; /* a request cell + its generation */
typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int mpi_bytes_;     /* message size in bytes (MPI_Get_count) */
  int mpi_cancelled_; /* MPI_Test_cancelled */
} MPI_Status;

#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_BOTTOM ((void *)0)

#define MPI_PROC_NULL (-1)
#define MPI_ANY_SOURCE (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB_VALUE 65534 /* tags are 0 .. 65534: 16 bits in a request, 0xffff is MPI_ANY_TAG */
#define MPI_MAX_PROCESSOR_NAME 32
#define MPI_MAX_ERROR_STRING 128

/* Datatypes: contiguous basic types (index into a table, runtime/mpi/datatypes.c). */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_SHORT ((MPI_Datatype)5)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)6)
#define MPI_INT ((MPI_Datatype)7)
#define MPI_UNSIGNED ((MPI_Datatype)8)
#define MPI_LONG ((MPI_Datatype)9)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)10)
#define MPI_LONG_LONG ((MPI_Datatype)11)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)12)
#define MPI_FLOAT ((MPI_Datatype)13)
#define MPI_DOUBLE ((MPI_Datatype)14)
#define MPI_INT8_T ((MPI_Datatype)15)
#define MPI_UINT8_T ((MPI_Datatype)16)
#define MPI_INT16_T ((MPI_Datatype)17)
#define MPI_UINT16_T ((MPI_Datatype)18)
#define MPI_INT32_T ((MPI_Datatype)19)
#define MPI_UINT32_T ((MPI_Datatype)20)
#define MPI_INT64_T ((MPI_Datatype)21)
#define MPI_UINT64_T ((MPI_Datatype)22)
#define MPI_C_BOOL ((MPI_Datatype)23)
#define MPI_WCHAR ((MPI_Datatype)24)
#define MPI_PACKED ((MPI_Datatype)25)
/* Pairs for MPI_MAXLOC / MPI_MINLOC. */
#define MPI_2INT ((MPI_Datatype)26)
#define MPI_FLOAT_INT ((MPI_Datatype)27)
#define MPI_DOUBLE_INT ((MPI_Datatype)28)
#define MPI_LONG_INT ((MPI_Datatype)29)
#define MPI_SHORT_INT ((MPI_Datatype)30)
#define MPI_LONG_DOUBLE ((MPI_Datatype)31) /* moved as bytes; no reductions */
#define MPI_AINT ((MPI_Datatype)32)
#define MPI_COUNT ((MPI_Datatype)33)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)34) /* moved as bytes; no reductions */
/* Markers of MPI-1 struct types: they set the lower and upper bound (no data). */
#define MPI_LB ((MPI_Datatype)-10)
#define MPI_UB ((MPI_Datatype)-11)
#define MPI_COMBINER_UNKNOWN 0

/* Groups. */
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)1)

/* Buffered mode: the bookkeeping per message in the attached buffer. */
#define MPI_BSEND_OVERHEAD 32

#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MAXLOC ((MPI_Op)11)
#define MPI_MINLOC ((MPI_Op)12)

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)

/* Error classes (the codes are the classes). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_NO_MEM 20
#define MPI_ERR_KEYVAL 21
#define MPI_ERR_LASTCODE 21

/* Topologies and attributes. */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *type);
/* Attribute callbacks (MPI-1 and MPI-2 names for the same shapes). */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val,
                                void *extra_state);
typedef MPI_Copy_function MPI_Comm_copy_attr_function;
typedef MPI_Delete_function MPI_Comm_delete_attr_function;
int MPI_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_NULL_DELETE_FN(MPI_Comm, int, void *, void *);
#define MPI_COMM_NULL_COPY_FN MPI_NULL_COPY_FN
#define MPI_COMM_DUP_FN MPI_DUP_FN
#define MPI_COMM_NULL_DELETE_FN MPI_NULL_DELETE_FN
#define MPI_KEYVAL_INVALID (-1)
/* Error handlers. */
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *code, ...);
typedef MPI_Comm_errhandler_function MPI_Handler_function;
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;

/* ---- Environment ---------------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Finalize(void);
int MPI_Initialized(int *flag);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
double MPI_Wtime(void); /* simulated time: clocks / clock frequency */
double MPI_Wtick(void);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag);
int MPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag);
int MPI_Pcontrol(const int level, ...);
#define MPI_MAX_LIBRARY_VERSION_STRING 128
int MPI_Query_thread(int *provided);
int MPI_Is_thread_main(int *flag);
int MPI_Get_library_version(char *version, int *resultlen);
int MPI_Op_commutative(MPI_Op op, int *commute);
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype type, MPI_Op op);
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype type, int count);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
int MPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *errhandler);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state);
int MPI_Keyval_free(int *keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Attr_delete(MPI_Comm comm, int keyval);
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                           MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                           void *extra_state);
int MPI_Comm_free_keyval(int *keyval);
int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Comm_delete_attr(MPI_Comm comm, int keyval);

/* ---- Communicators -------------------------------------------------------------- */

int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result);
int MPI_Topo_test(MPI_Comm comm, int *status);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
/* Intercommunicators (MPI-1): point to point to the remote group; no collectives. */
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int MPI_Comm_remote_size(MPI_Comm comm, int *size);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
#define MPI_MAX_OBJECT_NAME 64
int MPI_Comm_set_name(MPI_Comm comm, const char *name);
int MPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen);
int MPI_Group_size(MPI_Group group, int *size);
int MPI_Group_rank(MPI_Group group, int *rank);
int MPI_Group_free(MPI_Group *group);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int *ranks1, MPI_Group group2,
                              int *ranks2);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_incl(MPI_Group group, int n, const int *ranks, MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int *ranks, MPI_Group *newgroup);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);

/* ---- Datatypes and operations --------------------------------------------------- */

int MPI_Type_size(MPI_Datatype type, int *size);
/* MPI-3's MPI_Count forms: the size of a type beyond an int, too. */
int MPI_Type_size_x(MPI_Datatype type, MPI_Count *size);
int MPI_Type_get_extent_x(MPI_Datatype type, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_true_extent_x(MPI_Datatype type, MPI_Count *true_lb, MPI_Count *true_extent);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype type, MPI_Count *count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype type, MPI_Count count);
int MPI_Type_get_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_commit(MPI_Datatype *type);
int MPI_Type_free(MPI_Datatype *type);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int *blocklengths, const int *displacements,
                     MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int *displacements,
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_hindexed(int count, const int *blocklengths, const MPI_Aint *displacements,
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int *blocklengths, const MPI_Aint *displacements,
                             MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_struct(int count, const int *blocklengths, const MPI_Aint *displacements,
                    const MPI_Datatype *types, MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int *blocklengths, const MPI_Aint *displacements,
                           const MPI_Datatype *types, MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
int MPI_Type_create_subarray(int ndims, const int *sizes, const int *subsizes,
                             const int *starts, int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_extent(MPI_Datatype type, MPI_Aint *extent);
int MPI_Type_lb(MPI_Datatype type, MPI_Aint *lb);
int MPI_Type_ub(MPI_Datatype type, MPI_Aint *ub);
int MPI_Type_get_true_extent(MPI_Datatype type, MPI_Aint *true_lb, MPI_Aint *true_extent);
int MPI_Address(const void *location, MPI_Aint *address);
int MPI_Get_address(const void *location, MPI_Aint *address);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype type, void *outbuf, int outsize,
             int *position, MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype type, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype type, MPI_Comm comm, int *size);
int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);

/* ---- Point to point ------------------------------------------------------------- */

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
               MPI_Comm comm, MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
               MPI_Comm comm, MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request *requests);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);

int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request *requests, MPI_Status *statuses);
int MPI_Waitany(int count, MPI_Request *requests, int *index, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request *requests, int *outcount, int *indices,
                 MPI_Status *statuses);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Testall(int count, MPI_Request *requests, int *flag, MPI_Status *statuses);
int MPI_Testany(int count, MPI_Request *requests, int *index, int *flag, MPI_Status *status);
int MPI_Request_free(MPI_Request *request);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype type, int *count);
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int MPI_Testsome(int incount, MPI_Request *requests, int *outcount, int *indices,
                 MPI_Status *statuses);
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);

/* ---- Collectives ---------------------------------------------------------------- */

int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm);
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm);
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                MPI_Comm comm);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                   MPI_Comm comm);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int MPI_Alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                  const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm);

/* ---- Cartesian topologies ------------------------------------------------------- */

int MPI_Dims_create(int nnodes, int ndims, int *dims);
int MPI_Cart_create(MPI_Comm comm, int ndims, const int *dims, const int *periods, int reorder,
                    MPI_Comm *comm_cart);
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int *coords);
int MPI_Cart_rank(MPI_Comm comm, const int *coords, int *rank);
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *source, int *dest);
int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
int MPI_Cart_get(MPI_Comm comm, int maxdims, int *dims, int *periods, int *coords);
int MPI_Cart_sub(MPI_Comm comm, const int *remain_dims, MPI_Comm *newcomm);
int MPI_Cart_map(MPI_Comm comm, int ndims, const int *dims, const int *periods, int *newrank);
int MPI_Graph_create(MPI_Comm comm, int nnodes, const int *index, const int *edges, int reorder,
                     MPI_Comm *comm_graph);
int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int *index, int *edges);
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int *neighbors);
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int *index, const int *edges, int *newrank);

/* ---- MPI_Wait's suspension in the caller ------------------------------------------
 * A wait that blocks suspends the computation, and everything the caller keeps in
 * registers must survive the threads that run meanwhile. Compiled into the caller (as
 * the runtime's blocking calls, docs/runtime.md "Suspension"), the suspension saves only
 * the caller's live values, as EM-C did; a function called to block would save all 23
 * callee-saved registers at every wait. mpi_wait_begin finishes the wait when it need
 * not block (the result: an MPI error code, below 4096) or sends the I-structure read
 * and returns the context to suspend on; mpi_wait_end finishes it with the value read.
 * MPI_Send, MPI_Recv and MPI_Waitall likewise. Define MPI_EMX_NO_INLINE_WAIT for plain
 * calls. */
uintptr_t mpi_wait_begin(MPI_Request *request, MPI_Status *status);
int mpi_wait_end(MPI_Request *request, MPI_Status *status, uint32_t value);
uintptr_t mpi_recv_begin(void *buf, int count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Status *status, MPI_Request *request);
int mpi_recv_end(MPI_Request *request, MPI_Status *status, uint32_t value);
uintptr_t mpi_send_begin(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request);
int mpi_send_end(MPI_Request *request, uint32_t value);
/* MPI_Waitall in steps: each step goes on from request `next` until one must block. */
typedef struct {
  int next, result;
  unsigned how;
} mpi_waitall_state;
uintptr_t mpi_waitall_step(int count, MPI_Request *requests, MPI_Status *statuses,
                           mpi_waitall_state *st);
void mpi_waitall_woken(MPI_Request *requests, MPI_Status *statuses, mpi_waitall_state *st,
                       uint32_t value);
/* MPI_Irecv with matching on both sides waits for its receive request's operand segment
 * (as the original's issuing thread did): likewise in steps, mpi_irecv_begin returns the
 * context to suspend on, mpi_irecv_end writes and invokes the request. */
uintptr_t mpi_irecv_begin(void *buf, int count, MPI_Datatype type, int source, int tag,
                          MPI_Comm comm, MPI_Request *request);
int mpi_irecv_end(MPI_Request *request, uint32_t frame);
/* MPI_Isend likewise waits for its request's operand segment when it creates one (the
 * original's order; -mpi-option=local-isend: it never waits): mpi_isend_begin returns
 * the context to suspend on, mpi_isend_end writes and invokes the request. */
uintptr_t mpi_isend_begin(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request);
int mpi_isend_end(MPI_Request *request, uint32_t frame);
#if !defined(EMX_MPI_LIBRARY) && !defined(MPI_EMX_NO_INLINE_WAIT) && !defined(__cplusplus)
#include <emx/threads.h>
static inline int mpi_irecv_inline(void *buf, int count, MPI_Datatype type, int source,
                                   int tag, MPI_Comm comm, MPI_Request *request) {
  const uintptr_t c = mpi_irecv_begin(buf, count, type, source, tag, comm, request);
  if (c < 4096) return (int)c;
  return mpi_irecv_end(request, __emx_suspend((emx_ctx_t *)c).a0);
}
#define MPI_Irecv(buf, count, type, source, tag, comm, request) \
  mpi_irecv_inline(buf, count, type, source, tag, comm, request)
static inline int mpi_isend_inline(const void *buf, int count, MPI_Datatype type, int dest,
                                   int tag, MPI_Comm comm, MPI_Request *request) {
  const uintptr_t c = mpi_isend_begin(buf, count, type, dest, tag, comm, request);
  if (__builtin_expect(c < 4096, 1)) return (int)c;
  return mpi_isend_end(request, __emx_suspend((emx_ctx_t *)c).a0);
}
#define MPI_Isend(buf, count, type, dest, tag, comm, request) \
  mpi_isend_inline(buf, count, type, dest, tag, comm, request)
static inline int mpi_wait_inline(MPI_Request *request, MPI_Status *status) {
  const uintptr_t c = mpi_wait_begin(request, status);
  if (__builtin_expect(c < 4096, 1)) return (int)c;
  return mpi_wait_end(request, status, __emx_suspend((emx_ctx_t *)c).a0);
}
#define MPI_Wait(request, status) mpi_wait_inline(request, status)
static inline int mpi_recv_inline(void *buf, int count, MPI_Datatype type, int source,
                                  int tag, MPI_Comm comm, MPI_Status *status) {
  MPI_Request request;
  const uintptr_t c = mpi_recv_begin(buf, count, type, source, tag, comm, status, &request);
  if (__builtin_expect(c < 4096, 1)) return (int)c;
  return mpi_recv_end(&request, status, __emx_suspend((emx_ctx_t *)c).a0);
}
#define MPI_Recv(buf, count, type, source, tag, comm, status) \
  mpi_recv_inline(buf, count, type, source, tag, comm, status)
static inline int mpi_send_inline(const void *buf, int count, MPI_Datatype type, int dest,
                                  int tag, MPI_Comm comm) {
  MPI_Request request;
  const uintptr_t c = mpi_send_begin(buf, count, type, dest, tag, comm, &request);
  if (__builtin_expect(c < 4096, 1)) return (int)c;
  return mpi_send_end(&request, __emx_suspend((emx_ctx_t *)c).a0);
}
#define MPI_Send(buf, count, type, dest, tag, comm) \
  mpi_send_inline(buf, count, type, dest, tag, comm)
static inline int mpi_waitall_inline(int count, MPI_Request *requests, MPI_Status *statuses) {
  mpi_waitall_state st = {0, 0, 0};
  uintptr_t c;
  while ((c = mpi_waitall_step(count, requests, statuses, &st)) >= 4096)
    mpi_waitall_woken(requests, statuses, &st, __emx_suspend((emx_ctx_t *)c).a0);
  return (int)c;
}
#define MPI_Waitall(count, requests, statuses) mpi_waitall_inline(count, requests, statuses)
#endif

#ifdef __cplusplus
}
#endif

#endif
