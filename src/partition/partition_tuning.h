/* src/partition/partition_tuning.h: the partitioner's constants, each with where it comes from. */
#ifndef SPX_PARTITION_PARTITION_TUNING_H
#define SPX_PARTITION_PARTITION_TUNING_H

/* METIS's load-imbalance tolerance in 1/1000 (METIS_OPTION_UFACTOR; 30 is METIS's own default
 * for k-way): the ehyb format sizes its parts so that one 3 % over the mean still fits. */
#define SPX_PARTITION_METIS_UFACTOR 30
/* The fixed seed that makes METIS (and so CI) deterministic. */
#define SPX_PARTITION_METIS_SEED 4242
/* Graphs of fewer vertices than this are built on one thread: a parallel region's start and
 * barrier cost more than the work (and far more on a loaded machine); the ehyb format's
 * preprocessing threshold, where this code came from. */
#define SPX_PARTITION_PARALLEL_MIN 16384

#endif
