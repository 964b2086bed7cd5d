#!/bin/sh
# A Slurm array job: each task prepares one shard of the library (see prep-shard), task I shard I
# of PREP_SHARDS, so the array runs from 0 to PREP_SHARDS-1 (here 8 shards: 0-7).
# Submit it from the folder that holds it and prep-shard:   sbatch slurm-array.sh
# A task that failed or was stopped is submitted again alone, with the same PREP_SHARDS
# (sbatch --array=3 slurm-array.sh); it keeps what its first run placed and prepares the rest.
# One CPU a task (prep-photo --jobs 1): more tasks at once serve a cluster better than wide ones;
# sbatch --cpus-per-task=8 runs 8 photos at once in each.
#SBATCH --job-name=prep-photo
#SBATCH --array=0-7
#SBATCH --cpus-per-task=1
#SBATCH --output=prep-photo-%A_%a.log
export PREP_LIST="${PREP_LIST:-/shared/library.list}"
export PREP_BASE="${PREP_BASE:-/shared/library}"
export PREP_OUT="${PREP_OUT:-/shared/prepared}"
export PREP_OPTIONS="--jobs ${SLURM_CPUS_PER_TASK:-1} ${PREP_OPTIONS:-}"
exec "${SLURM_SUBMIT_DIR:-.}/prep-shard" "$SLURM_ARRAY_TASK_ID" "${PREP_SHARDS:-8}"
