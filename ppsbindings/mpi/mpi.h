/*
 * mpi.h - a subset of MPI on Panda-ST (and so on LCI), with the standard
 * names, types and signatures.  Build programs with lci-mpicc and start
 * them with lci-run.
 *
 * Offered: MPI_Init, MPI_Initialized, MPI_Finalize, MPI_Finalized,
 * MPI_Abort, MPI_Comm_rank, MPI_Comm_size, MPI_Send, MPI_Recv, MPI_Isend,
 * MPI_Irecv, MPI_Wait, MPI_Waitall, MPI_Test, MPI_Get_count, MPI_Barrier,
 * MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Wtime, MPI_Wtick,
 * MPI_Get_processor_name, MPI_Error_string, MPI_Comm_set_errhandler,
 * all on MPI_COMM_WORLD only.  Anything else is not declared here, so a
 * program that uses it fails to compile or link rather than misbehave.
 *
 * Semantics: sends are eager (the data is in the network when MPI_Send or
 * MPI_Isend returns, so an MPI_Isend request is complete at once); messages
 * between a pair of ranks with the same tag are received in the order sent;
 * MPI_Bcast is Panda's broadcast (LCI multicast, packets forwarded by the
 * tree); MPI_Reduce combines contributions in rank order, so floating-point
 * results equal a serial loop over ranks 0..size-1.
 *
 * Errors are fatal (MPI_ERRORS_ARE_FATAL: a message, then the run stops)
 * unless MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) was
 * called; then calls return the MPI_ERR_* code, and MPI_Error_string
 * gives the message of the last error.
 */
#ifndef LCI_MPI_H
#define LCI_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION    1
#define MPI_SUBVERSION 0

/* ---- error codes ----------------------------------------------------- */
#define MPI_SUCCESS      0
#define MPI_ERR_BUFFER   1
#define MPI_ERR_COUNT    2
#define MPI_ERR_TYPE     3
#define MPI_ERR_TAG      4
#define MPI_ERR_COMM     5
#define MPI_ERR_RANK     6
#define MPI_ERR_REQUEST  7
#define MPI_ERR_ROOT     8
#define MPI_ERR_OP       9
#define MPI_ERR_ARG      10
#define MPI_ERR_TRUNCATE 11
#define MPI_ERR_OTHER    12
#define MPI_ERR_INTERN   13
#define MPI_ERR_LASTCODE 13

#define MPI_MAX_ERROR_STRING   512
#define MPI_MAX_PROCESSOR_NAME 64

/* ---- handles ---------------------------------------------------------- */
typedef int MPI_Comm;
#define MPI_COMM_NULL  0
#define MPI_COMM_WORLD 1

typedef int MPI_Errhandler;
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN    2

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

typedef int MPI_Op;
#define MPI_OP_NULL 0
#define MPI_SUM     1
#define MPI_MIN     2
#define MPI_MAX     3
#define MPI_PROD    4

typedef struct lci_mpi_request *MPI_Request;
#define MPI_REQUEST_NULL ((MPI_Request)0)

typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    size_t lci_bytes; /* received length, for MPI_Get_count */
} MPI_Status;

#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

#define MPI_ANY_SOURCE   (-1)
#define MPI_ANY_TAG      (-1)
#define MPI_PROC_NULL    (-2)
#define MPI_UNDEFINED    (-32766)
#define MPI_TAG_UB_VALUE 0x7fffffff

/* Passed as sendbuf to MPI_Reduce (at the root) and MPI_Allreduce: the
 * input is in recvbuf. */
#define MPI_IN_PLACE ((void *)1)

/* ---- environment ------------------------------------------------------ */
int MPI_Init(int *argc, char ***argv);
int MPI_Initialized(int *flag);
int MPI_Finalize(void);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Get_processor_name(char *name, int *resultlen);
double MPI_Wtime(void); /* virtual time on the simulated platform */
double MPI_Wtick(void);

/* ---- point to point --------------------------------------------------- */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
             MPI_Comm comm, MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Request *request);
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request array_of_requests[],
                MPI_Status array_of_statuses[]);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);

/* ---- collectives ------------------------------------------------------ */
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif /* LCI_MPI_H */
