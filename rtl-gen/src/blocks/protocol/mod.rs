//! Not a block kind: the wire formats and untimed protocol references that several kinds share
//! and build on, one module per protocol family. They sit inside `blocks` because they use a
//! kind's reference model (the SUE R-CRC is the `crc` kind's model), and no kind's folder owns
//! them.

pub mod sue;
