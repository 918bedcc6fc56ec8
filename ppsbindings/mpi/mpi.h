/*
 * mpi.h - MPI on Panda-ST (and so on LCI), with the standard's names,
 * types and signatures.  Build programs with lci-mpicc and start them with
 * lci-run.  doc/pps.md lists what is offered, chapter by chapter of the
 * MPI standard.
 *
 * Every function is also offered as PMPI_* (the profiling interface): the
 * MPI_* names are weak aliases, so a tool may define MPI_Send itself and
 * call PMPI_Send.  A function of the standard that is not offered is
 * declared unavailable below where the compiler can say so, or not
 * declared at all: a program that uses one fails to compile, never at run
 * time.
 *
 * Semantics: messages between a pair of ranks on one communicator with the
 * same tag are received in the order sent; messages up to 16 KiB are sent
 * at once (eager), larger ones when the receive is posted (rendezvous), and
 * MPI_Ssend always waits for the receive.  MPI_Bcast on a communicator of
 * every rank is a Panda broadcast (LCI multicast: packets forwarded along
 * the tree); reductions combine contributions in rank order, so
 * floating-point results equal a serial loop over ranks 0..size-1.
 *
 * Errors are fatal (MPI_ERRORS_ARE_FATAL: a message, then the run stops)
 * unless a communicator's error handler is MPI_ERRORS_RETURN; then calls
 * return an MPI_ERR_* code, and MPI_Error_string gives the message of the
 * last error.
 */
#ifndef LCI_MPI_H
#define LCI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION    3
#define MPI_SUBVERSION 1

/* ---- error classes ----------------------------------------------------- */
#define MPI_SUCCESS          0
#define MPI_ERR_BUFFER       1
#define MPI_ERR_COUNT        2
#define MPI_ERR_TYPE         3
#define MPI_ERR_TAG          4
#define MPI_ERR_COMM         5
#define MPI_ERR_RANK         6
#define MPI_ERR_REQUEST      7
#define MPI_ERR_ROOT         8
#define MPI_ERR_OP           9
#define MPI_ERR_ARG          10
#define MPI_ERR_TRUNCATE     11
#define MPI_ERR_OTHER        12
#define MPI_ERR_INTERN       13
#define MPI_ERR_GROUP        14
#define MPI_ERR_TOPOLOGY     15
#define MPI_ERR_DIMS         16
#define MPI_ERR_UNKNOWN      17
#define MPI_ERR_IN_STATUS    18
#define MPI_ERR_PENDING      19
#define MPI_ERR_KEYVAL       20
#define MPI_ERR_NO_MEM       21
#define MPI_ERR_INFO         22
#define MPI_ERR_UNSUPPORTED_OPERATION 23
#define MPI_ERR_LASTCODE     23

#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_PROCESSOR_NAME         64
#define MPI_MAX_OBJECT_NAME            64
#define MPI_MAX_LIBRARY_VERSION_STRING 256

/* ---- handles and basic types ------------------------------------------- */
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

typedef int MPI_Comm;
#define MPI_COMM_NULL  0
#define MPI_COMM_WORLD 1
#define MPI_COMM_SELF  2

typedef int MPI_Group;
#define MPI_GROUP_NULL  0
#define MPI_GROUP_EMPTY 1

typedef int MPI_Errhandler;
#define MPI_ERRHANDLER_NULL  0
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN    2

typedef int MPI_Info;
#define MPI_INFO_NULL 0

typedef int MPI_Datatype;
#define MPI_DATATYPE_NULL      0
#define MPI_CHAR               1
#define MPI_SIGNED_CHAR        2
#define MPI_UNSIGNED_CHAR      3
#define MPI_BYTE               4
#define MPI_SHORT              5
#define MPI_UNSIGNED_SHORT     6
#define MPI_INT                7
#define MPI_UNSIGNED           8
#define MPI_LONG               9
#define MPI_UNSIGNED_LONG      10
#define MPI_LONG_LONG_INT      11
#define MPI_LONG_LONG          MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG 12
#define MPI_FLOAT              13
#define MPI_DOUBLE             14
#define MPI_LONG_DOUBLE        15
#define MPI_INT8_T             16
#define MPI_INT16_T            17
#define MPI_INT32_T            18
#define MPI_INT64_T            19
#define MPI_UINT8_T            20
#define MPI_UINT16_T           21
#define MPI_UINT32_T           22
#define MPI_UINT64_T           23
#define MPI_WCHAR              24
#define MPI_C_BOOL             25
#define MPI_AINT               26
#define MPI_OFFSET             27
#define MPI_COUNT              28
#define MPI_PACKED             29
/* value-index pairs for MPI_MAXLOC and MPI_MINLOC */
#define MPI_FLOAT_INT          30
#define MPI_DOUBLE_INT         31
#define MPI_LONG_INT           32
#define MPI_SHORT_INT          33
#define MPI_LONG_DOUBLE_INT    34
#define MPI_2INT               35

typedef int MPI_Op;
#define MPI_OP_NULL 0
#define MPI_SUM     1
#define MPI_MIN     2
#define MPI_MAX     3
#define MPI_PROD    4
#define MPI_LAND    5
#define MPI_BAND    6
#define MPI_LOR     7
#define MPI_BOR     8
#define MPI_LXOR    9
#define MPI_BXOR    10
#define MPI_MAXLOC  11
#define MPI_MINLOC  12
#define MPI_REPLACE 13
#define MPI_NO_OP   14

typedef struct lci_mpi_request *MPI_Request;
#define MPI_REQUEST_NULL ((MPI_Request)0)

typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int lci_cancelled; /* MPI_Test_cancelled */
    size_t lci_bytes;  /* received length, for MPI_Get_count */
} MPI_Status;

#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG    (-1)
#define MPI_PROC_NULL  (-2)
#define MPI_ROOT       (-3)
#define MPI_UNDEFINED  (-32766)
#define MPI_TAG_UB_VALUE 0x7fffffff

/* MPI_Comm_compare, MPI_Group_compare */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* attribute keys of every communicator */
#define MPI_KEYVAL_INVALID  0
#define MPI_TAG_UB          1
#define MPI_HOST            2
#define MPI_IO              3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE   5
#define MPI_APPNUM          6

/* MPI_Init_thread */
#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* As sendbuf of a reduction, gather or scatter: the input is in place. */
#define MPI_IN_PLACE ((void *)1)
/* The start of the address space, for types built with MPI_Get_address. */
#define MPI_BOTTOM ((void *)0)

typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
                               MPI_Datatype *datatype);
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval,
                                        void *extra_state,
                                        void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval,
                                          void *attribute_val,
                                          void *extra_state);
#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                    void *attribute_val_in, void *attribute_val_out,
                    int *flag);

/* Each function under both names: MPI_* and the profiling PMPI_*. */
#define LCI_MPI_FN(ret, name, params) ret name params; ret P##name params

/* ---- environment (MPI-3.1 chapter 8) ------------------------------------ */
LCI_MPI_FN(int, MPI_Init, (int *argc, char ***argv));
LCI_MPI_FN(int, MPI_Init_thread,
           (int *argc, char ***argv, int required, int *provided));
LCI_MPI_FN(int, MPI_Query_thread, (int *provided));
LCI_MPI_FN(int, MPI_Is_thread_main, (int *flag));
LCI_MPI_FN(int, MPI_Initialized, (int *flag));
LCI_MPI_FN(int, MPI_Finalize, (void));
LCI_MPI_FN(int, MPI_Finalized, (int *flag));
LCI_MPI_FN(int, MPI_Abort, (MPI_Comm comm, int errorcode));
LCI_MPI_FN(int, MPI_Get_version, (int *version, int *subversion));
LCI_MPI_FN(int, MPI_Get_library_version, (char *version, int *resultlen));
LCI_MPI_FN(int, MPI_Get_processor_name, (char *name, int *resultlen));
LCI_MPI_FN(int, MPI_Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
LCI_MPI_FN(int, MPI_Free_mem, (void *base));
LCI_MPI_FN(double, MPI_Wtime, (void)); /* virtual time when simulated */
LCI_MPI_FN(double, MPI_Wtick, (void));
LCI_MPI_FN(int, MPI_Comm_set_errhandler,
           (MPI_Comm comm, MPI_Errhandler errhandler));
LCI_MPI_FN(int, MPI_Comm_get_errhandler,
           (MPI_Comm comm, MPI_Errhandler *errhandler));
LCI_MPI_FN(int, MPI_Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler));
LCI_MPI_FN(int, MPI_Errhandler_get,
           (MPI_Comm comm, MPI_Errhandler *errhandler));
LCI_MPI_FN(int, MPI_Errhandler_free, (MPI_Errhandler *errhandler));
LCI_MPI_FN(int, MPI_Error_string,
           (int errorcode, char *string, int *resultlen));
LCI_MPI_FN(int, MPI_Error_class, (int errorcode, int *errorclass));

/* ---- point to point (chapter 3) ---------------------------------------- */
LCI_MPI_FN(int, MPI_Send, (const void *buf, int count, MPI_Datatype datatype,
                           int dest, int tag, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Ssend, (const void *buf, int count, MPI_Datatype datatype,
                            int dest, int tag, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Rsend, (const void *buf, int count, MPI_Datatype datatype,
                            int dest, int tag, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Bsend, (const void *buf, int count, MPI_Datatype datatype,
                            int dest, int tag, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Recv, (void *buf, int count, MPI_Datatype datatype,
                           int source, int tag, MPI_Comm comm,
                           MPI_Status *status));
LCI_MPI_FN(int, MPI_Isend, (const void *buf, int count, MPI_Datatype datatype,
                            int dest, int tag, MPI_Comm comm,
                            MPI_Request *request));
LCI_MPI_FN(int, MPI_Issend, (const void *buf, int count,
                             MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Irsend, (const void *buf, int count,
                             MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Ibsend, (const void *buf, int count,
                             MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Irecv, (void *buf, int count, MPI_Datatype datatype,
                            int source, int tag, MPI_Comm comm,
                            MPI_Request *request));
LCI_MPI_FN(int, MPI_Sendrecv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            int dest, int sendtag, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
            MPI_Status *status));
LCI_MPI_FN(int, MPI_Sendrecv_replace,
           (void *buf, int count, MPI_Datatype datatype, int dest,
            int sendtag, int source, int recvtag, MPI_Comm comm,
            MPI_Status *status));
LCI_MPI_FN(int, MPI_Probe, (int source, int tag, MPI_Comm comm,
                            MPI_Status *status));
LCI_MPI_FN(int, MPI_Iprobe, (int source, int tag, MPI_Comm comm, int *flag,
                             MPI_Status *status));
LCI_MPI_FN(int, MPI_Buffer_attach, (void *buffer, int size));
LCI_MPI_FN(int, MPI_Buffer_detach, (void *buffer_addr, int *size));
#define MPI_BSEND_OVERHEAD 64

LCI_MPI_FN(int, MPI_Wait, (MPI_Request *request, MPI_Status *status));
LCI_MPI_FN(int, MPI_Waitall, (int count, MPI_Request array_of_requests[],
                              MPI_Status array_of_statuses[]));
LCI_MPI_FN(int, MPI_Waitany, (int count, MPI_Request array_of_requests[],
                              int *index, MPI_Status *status));
LCI_MPI_FN(int, MPI_Waitsome,
           (int incount, MPI_Request array_of_requests[], int *outcount,
            int array_of_indices[], MPI_Status array_of_statuses[]));
LCI_MPI_FN(int, MPI_Test, (MPI_Request *request, int *flag,
                           MPI_Status *status));
LCI_MPI_FN(int, MPI_Testall, (int count, MPI_Request array_of_requests[],
                              int *flag, MPI_Status array_of_statuses[]));
LCI_MPI_FN(int, MPI_Testany, (int count, MPI_Request array_of_requests[],
                              int *index, int *flag, MPI_Status *status));
LCI_MPI_FN(int, MPI_Testsome,
           (int incount, MPI_Request array_of_requests[], int *outcount,
            int array_of_indices[], MPI_Status array_of_statuses[]));
LCI_MPI_FN(int, MPI_Request_free, (MPI_Request *request));
LCI_MPI_FN(int, MPI_Request_get_status, (MPI_Request request, int *flag,
                                         MPI_Status *status));
LCI_MPI_FN(int, MPI_Cancel, (MPI_Request *request));
LCI_MPI_FN(int, MPI_Test_cancelled, (const MPI_Status *status, int *flag));
LCI_MPI_FN(int, MPI_Send_init, (const void *buf, int count,
                                MPI_Datatype datatype, int dest, int tag,
                                MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Ssend_init, (const void *buf, int count,
                                 MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Rsend_init, (const void *buf, int count,
                                 MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Bsend_init, (const void *buf, int count,
                                 MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Recv_init, (void *buf, int count, MPI_Datatype datatype,
                                int source, int tag, MPI_Comm comm,
                                MPI_Request *request));
LCI_MPI_FN(int, MPI_Start, (MPI_Request *request));
LCI_MPI_FN(int, MPI_Startall, (int count, MPI_Request array_of_requests[]));
LCI_MPI_FN(int, MPI_Get_count, (const MPI_Status *status,
                                MPI_Datatype datatype, int *count));

/* ---- datatypes (chapter 4) ---------------------------------------------- */
LCI_MPI_FN(int, MPI_Type_contiguous,
           (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_vector, (int count, int blocklength, int stride,
                                  MPI_Datatype oldtype,
                                  MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_create_hvector,
           (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
            MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_indexed,
           (int count, const int array_of_blocklengths[],
            const int array_of_displacements[], MPI_Datatype oldtype,
            MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_create_hindexed,
           (int count, const int array_of_blocklengths[],
            const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
            MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_create_indexed_block,
           (int count, int blocklength, const int array_of_displacements[],
            MPI_Datatype oldtype, MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_create_hindexed_block,
           (int count, int blocklength,
            const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
            MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_create_struct,
           (int count, const int array_of_blocklengths[],
            const MPI_Aint array_of_displacements[],
            const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_create_resized,
           (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
            MPI_Datatype *newtype));
#define MPI_ORDER_C       56
#define MPI_ORDER_FORTRAN 57
LCI_MPI_FN(int, MPI_Type_create_subarray,
           (int ndims, const int array_of_sizes[],
            const int array_of_subsizes[], const int array_of_starts[],
            int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
LCI_MPI_FN(int, MPI_Type_commit, (MPI_Datatype *datatype));
LCI_MPI_FN(int, MPI_Type_free, (MPI_Datatype *datatype));
LCI_MPI_FN(int, MPI_Type_size, (MPI_Datatype datatype, int *size));
LCI_MPI_FN(int, MPI_Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
LCI_MPI_FN(int, MPI_Type_get_extent,
           (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
LCI_MPI_FN(int, MPI_Type_get_true_extent,
           (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
LCI_MPI_FN(int, MPI_Type_get_name,
           (MPI_Datatype datatype, char *type_name, int *resultlen));
LCI_MPI_FN(int, MPI_Get_address, (const void *location, MPI_Aint *address));
LCI_MPI_FN(int, MPI_Get_elements, (const MPI_Status *status,
                                   MPI_Datatype datatype, int *count));
LCI_MPI_FN(int, MPI_Pack, (const void *inbuf, int incount,
                           MPI_Datatype datatype, void *outbuf, int outsize,
                           int *position, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Unpack, (const void *inbuf, int insize, int *position,
                             void *outbuf, int outcount,
                             MPI_Datatype datatype, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Pack_size, (int incount, MPI_Datatype datatype,
                                MPI_Comm comm, int *size));

/* ---- collectives (chapter 5) -------------------------------------------- */
LCI_MPI_FN(int, MPI_Barrier, (MPI_Comm comm));
LCI_MPI_FN(int, MPI_Bcast, (void *buffer, int count, MPI_Datatype datatype,
                            int root, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Reduce,
           (const void *sendbuf, void *recvbuf, int count,
            MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Allreduce,
           (const void *sendbuf, void *recvbuf, int count,
            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Gather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
            MPI_Comm comm));
LCI_MPI_FN(int, MPI_Gatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, const int recvcounts[], const int displs[],
            MPI_Datatype recvtype, int root, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Scatter,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
            MPI_Comm comm));
LCI_MPI_FN(int, MPI_Scatterv,
           (const void *sendbuf, const int sendcounts[], const int displs[],
            MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Allgather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype,
            MPI_Comm comm));
LCI_MPI_FN(int, MPI_Allgatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, const int recvcounts[], const int displs[],
            MPI_Datatype recvtype, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Alltoall,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype,
            MPI_Comm comm));
LCI_MPI_FN(int, MPI_Alltoallv,
           (const void *sendbuf, const int sendcounts[], const int sdispls[],
            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Alltoallw,
           (const void *sendbuf, const int sendcounts[], const int sdispls[],
            const MPI_Datatype sendtypes[], void *recvbuf,
            const int recvcounts[], const int rdispls[],
            const MPI_Datatype recvtypes[], MPI_Comm comm));
LCI_MPI_FN(int, MPI_Reduce_scatter,
           (const void *sendbuf, void *recvbuf, const int recvcounts[],
            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Reduce_scatter_block,
           (const void *sendbuf, void *recvbuf, int recvcount,
            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Scan, (const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
LCI_MPI_FN(int, MPI_Exscan, (const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm));
LCI_MPI_FN(int, MPI_Ibarrier, (MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Ibcast, (void *buffer, int count, MPI_Datatype datatype,
                             int root, MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Ireduce,
           (const void *sendbuf, void *recvbuf, int count,
            MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
            MPI_Request *request));
LCI_MPI_FN(int, MPI_Iallreduce,
           (const void *sendbuf, void *recvbuf, int count,
            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
            MPI_Request *request));
LCI_MPI_FN(int, MPI_Igather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
            MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Iscatter,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
            MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Iallgather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype,
            MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Ialltoall,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, int recvcount, MPI_Datatype recvtype,
            MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Igatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, const int recvcounts[], const int displs[],
            MPI_Datatype recvtype, int root, MPI_Comm comm,
            MPI_Request *request));
LCI_MPI_FN(int, MPI_Iscatterv,
           (const void *sendbuf, const int sendcounts[], const int displs[],
            MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm,
            MPI_Request *request));
LCI_MPI_FN(int, MPI_Iallgatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
            void *recvbuf, const int recvcounts[], const int displs[],
            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
LCI_MPI_FN(int, MPI_Ialltoallv,
           (const void *sendbuf, const int sendcounts[], const int sdispls[],
            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
            MPI_Request *request));
LCI_MPI_FN(int, MPI_Ialltoallw,
           (const void *sendbuf, const int sendcounts[], const int sdispls[],
            const MPI_Datatype sendtypes[], void *recvbuf,
            const int recvcounts[], const int rdispls[],
            const MPI_Datatype recvtypes[], MPI_Comm comm,
            MPI_Request *request));
LCI_MPI_FN(int, MPI_Ireduce_scatter,
           (const void *sendbuf, void *recvbuf, const int recvcounts[],
            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
            MPI_Request *request));
LCI_MPI_FN(int, MPI_Ireduce_scatter_block,
           (const void *sendbuf, void *recvbuf, int recvcount,
            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
            MPI_Request *request));
LCI_MPI_FN(int, MPI_Iscan, (const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            MPI_Request *request));
LCI_MPI_FN(int, MPI_Iexscan, (const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request));
LCI_MPI_FN(int, MPI_Op_create,
           (MPI_User_function *user_fn, int commute, MPI_Op *op));
LCI_MPI_FN(int, MPI_Op_free, (MPI_Op *op));
LCI_MPI_FN(int, MPI_Op_commutative, (MPI_Op op, int *commute));
LCI_MPI_FN(int, MPI_Reduce_local,
           (const void *inbuf, void *inoutbuf, int count,
            MPI_Datatype datatype, MPI_Op op));

/* ---- groups and communicators (chapter 6) ------------------------------- */
LCI_MPI_FN(int, MPI_Comm_rank, (MPI_Comm comm, int *rank));
LCI_MPI_FN(int, MPI_Comm_size, (MPI_Comm comm, int *size));
LCI_MPI_FN(int, MPI_Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
LCI_MPI_FN(int, MPI_Comm_split,
           (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
LCI_MPI_FN(int, MPI_Comm_create,
           (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
LCI_MPI_FN(int, MPI_Comm_create_group,
           (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));
LCI_MPI_FN(int, MPI_Comm_free, (MPI_Comm *comm));
LCI_MPI_FN(int, MPI_Comm_compare,
           (MPI_Comm comm1, MPI_Comm comm2, int *result));
LCI_MPI_FN(int, MPI_Comm_group, (MPI_Comm comm, MPI_Group *group));
LCI_MPI_FN(int, MPI_Comm_test_inter, (MPI_Comm comm, int *flag));
LCI_MPI_FN(int, MPI_Comm_set_name, (MPI_Comm comm, const char *comm_name));
LCI_MPI_FN(int, MPI_Comm_get_name,
           (MPI_Comm comm, char *comm_name, int *resultlen));
LCI_MPI_FN(int, MPI_Comm_create_keyval,
           (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
            int *comm_keyval, void *extra_state));
LCI_MPI_FN(int, MPI_Comm_free_keyval, (int *comm_keyval));
LCI_MPI_FN(int, MPI_Comm_set_attr,
           (MPI_Comm comm, int comm_keyval, void *attribute_val));
LCI_MPI_FN(int, MPI_Comm_get_attr, (MPI_Comm comm, int comm_keyval,
                                    void *attribute_val, int *flag));
LCI_MPI_FN(int, MPI_Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
LCI_MPI_FN(int, MPI_Attr_get, (MPI_Comm comm, int keyval, void *attribute_val,
                               int *flag));
LCI_MPI_FN(int, MPI_Group_size, (MPI_Group group, int *size));
LCI_MPI_FN(int, MPI_Group_rank, (MPI_Group group, int *rank));
LCI_MPI_FN(int, MPI_Group_incl, (MPI_Group group, int n, const int ranks[],
                                 MPI_Group *newgroup));
LCI_MPI_FN(int, MPI_Group_excl, (MPI_Group group, int n, const int ranks[],
                                 MPI_Group *newgroup));
LCI_MPI_FN(int, MPI_Group_union,
           (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
LCI_MPI_FN(int, MPI_Group_intersection,
           (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
LCI_MPI_FN(int, MPI_Group_difference,
           (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
LCI_MPI_FN(int, MPI_Group_translate_ranks,
           (MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
            int ranks2[]));
LCI_MPI_FN(int, MPI_Group_compare,
           (MPI_Group group1, MPI_Group group2, int *result));
LCI_MPI_FN(int, MPI_Group_free, (MPI_Group *group));

/* ---- process topologies (MPI-3.1 chapter 7): Cartesian ------------------ */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3
LCI_MPI_FN(int, MPI_Dims_create, (int nnodes, int ndims, int dims[]));
LCI_MPI_FN(int, MPI_Cart_create,
           (MPI_Comm comm_old, int ndims, const int dims[],
            const int periods[], int reorder, MPI_Comm *comm_cart));
LCI_MPI_FN(int, MPI_Cartdim_get, (MPI_Comm comm, int *ndims));
LCI_MPI_FN(int, MPI_Cart_get, (MPI_Comm comm, int maxdims, int dims[],
                               int periods[], int coords[]));
LCI_MPI_FN(int, MPI_Cart_rank, (MPI_Comm comm, const int coords[], int *rank));
LCI_MPI_FN(int, MPI_Cart_coords,
           (MPI_Comm comm, int rank, int maxdims, int coords[]));
LCI_MPI_FN(int, MPI_Cart_shift, (MPI_Comm comm, int direction, int disp,
                                 int *rank_source, int *rank_dest));
LCI_MPI_FN(int, MPI_Cart_sub,
           (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm));
LCI_MPI_FN(int, MPI_Topo_test, (MPI_Comm comm, int *status));

#undef LCI_MPI_FN

/* Parts of the standard this MPI does not offer.  Where the compiler has
 * the attribute, a call is a compile-time error with this message. */
#if defined(__has_attribute)
#if __has_attribute(unavailable)
#define LCI_MPI_NOT_OFFERED                                                    \
    __attribute__((unavailable("not offered by LCI's MPI (see doc/pps.md)")))
#endif
#endif
#ifdef LCI_MPI_NOT_OFFERED
typedef int MPI_Win;
typedef int MPI_File;
int MPI_Win_create(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Win_allocate(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Win_fence(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Win_free(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Put(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Get(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Accumulate(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_File_open(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_File_close(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_File_read(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_File_write(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Comm_spawn(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Intercomm_create(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Intercomm_merge(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Graph_create(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Type_create_darray(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Improbe(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Mprobe(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Mrecv(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Ineighbor_alltoall(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
int MPI_Neighbor_alltoall(const void *lci_first, ...) LCI_MPI_NOT_OFFERED;
#undef LCI_MPI_NOT_OFFERED
#endif

#ifdef __cplusplus
}
#endif
#endif /* LCI_MPI_H */
