//! MPICH JSON selection file (next commit).
