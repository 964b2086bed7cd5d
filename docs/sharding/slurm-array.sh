#!/bin/sh
# A Slurm array job: 8 tasks, each preparing one shard of the library (see prep-shard).
# Submit it from the folder that holds prep-shard:   sbatch slurm-array.sh
# Slurm sets SLURM_ARRAY_TASK_ID (here 0 to 7), SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT,
# SLURM_CPUS_PER_TASK and SLURM_SUBMIT_DIR; a task that fails can be resubmitted alone
# (sbatch --array=3 slurm-array.sh) and finishes what its first run left.
#SBATCH --job-name=prep-photo
#SBATCH --array=0-7
#SBATCH --cpus-per-task=8
#SBATCH --output=prep-photo-%a.log
export PREP_LIST="${PREP_LIST:-/shared/library.list}"
export PREP_BASE="${PREP_BASE:-/shared/library}"
export PREP_OUT="${PREP_OUT:-/shared/prepared}"
export PREP_OPTIONS="--jobs ${SLURM_CPUS_PER_TASK:-1}"
exec "${SLURM_SUBMIT_DIR:-.}/prep-shard" "$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN))" "$SLURM_ARRAY_TASK_COUNT"
