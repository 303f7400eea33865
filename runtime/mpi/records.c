/* Protocol messages as special-handler packets (mpi_internal.h, "records").
 *
 * A special packet carries one data word and 16 bits; a receive or send request needs
 * four words. The sender sends words 0..n-2 to the staging handler, which files them
 * under the source PE (10 bits of the argument) and the word's index (6 bits), and the
 * last word to the message's own handler with 6 bits of its own. All packets of a record
 * leave in one thread and a source's packets arrive and run in order, so one staging
 * area per source suffices and no frame has to be obtained first (EM-X's invocation with
 * a frame costs a round trip). Used with -mpi-option=staged-records; the default is the
 * paper's remote thread creation (creation.c). */
#include <stdlib.h>

#include "mpi_internal.h"

uint32_t *mpi_staging;
unsigned mpi_me, mpi_idx_stage, mpi_idx_rreq, mpi_idx_sreq, mpi_idx_remove;
unsigned mpi_idx_record[REQ_KINDS];
int mpi_direct;
uint32_t mpi_mem_end;

/* Seven instructions; never blocks, so it may end the thread itself. */
static void mpi_h_stage(uint32_t word, uint32_t arg16, uint32_t addr) {
  (void)addr;
  mpi_staging[record_src(arg16) * RECORD_STAGED + record_bits(arg16)] = word;
  emx_end();
}
EMX_HANDLER(mpi_h_stage);

void mpi_h_rreq(uint32_t, uint32_t, uint32_t);
void mpi_h_sreq(uint32_t, uint32_t, uint32_t);
void mpi_h_remove(uint32_t, uint32_t, uint32_t);
void mpi_h_tmp_alloc(uint32_t, uint32_t, uint32_t);
EMX_HANDLER_DECLARE(mpi_h_tmp_alloc);
EMX_HANDLER_DECLARE(mpi_h_rreq);
EMX_HANDLER_DECLARE(mpi_h_sreq);
EMX_HANDLER_DECLARE(mpi_h_remove);

void records_init(void) {
  mpi_me = emx_pe_id();
  mpi_direct = (emx_features() & EMX_FEATURE_DIRECT_REMOTE_ACCESS) != 0;
  mpi_mem_end = emx_mem_bytes();
  mpi_req_span = mpi_mem_end - 0x1000 - (uint32_t)sizeof(mpi_request);
  mpi_idx_stage = EMX_HANDLER_INDEX(mpi_h_stage);
  mpi_idx_rreq = EMX_HANDLER_INDEX(mpi_h_rreq);
  mpi_idx_sreq = EMX_HANDLER_INDEX(mpi_h_sreq);
  mpi_idx_remove = EMX_HANDLER_INDEX(mpi_h_remove);
  mpi_idx_record[REQ_SREQ] = mpi_idx_sreq;
  mpi_idx_record[REQ_RREQ] = mpi_idx_rreq;
  mpi_idx_record[REQ_TMP] = EMX_HANDLER_INDEX(mpi_h_tmp_alloc);
  rreq_pairs_init();
  creation_init();
  mpi_staging = calloc(emx_pe_count() * RECORD_STAGED, sizeof *mpi_staging);
  if (!mpi_staging) mpi_internal_error("no memory for the staging of protocol messages");
}
