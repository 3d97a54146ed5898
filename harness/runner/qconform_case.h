/*
 * qconform's offline files: what `qconform export` writes, what the runner
 * (harness/runner/qconform_runner.c) writes back, and what `qconform import` reads.
 * C99, no other dependency than harness/include/qconform/plugin.h. This comment is the
 * format's definition: enough to write another reader or writer.
 *
 * ---- Conventions -----------------------------------------------------------------------
 *
 * Every field is little-endian and fixed-width: u8, u16, u32, u64 unsigned; i32, i64 two's
 * complement; f32, f64 the IEEE 754 binary32 / binary64 bits. There is no padding and no
 * alignment anywhere. A `str` is a u32 byte count n followed by n bytes of UTF-8, without a
 * terminating NUL. `T x[n]` is n fields of type T one after the other.
 *
 * Every file and every record starts with the same 32-byte header and ends with a u32
 * CRC-32 of all its bytes before the CRC (the CRC of zlib, PNG and Ethernet: reflected,
 * polynomial 0xEDB88320, initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF; the CRC of the ASCII
 * bytes "123456789" is 0xCBF43926):
 *
 *   offset size
 *   0      4    magic: four ASCII bytes, the kind (QCF_MAGIC_*)
 *   4      u16  format_version: QCF_FORMAT_VERSION (the runner refuses any other; import also
 *                reads an export and records of QCF_FORMAT_VERSION_OLDEST and later, each file
 *                of the export's own version)
 *   6      u16  header_bytes: 32 (the body starts here)
 *   8      u32  total_bytes: the whole file or record, CRC included
 *   12     u32  index: the case's index in the export (a case file or a case record), the
 *                number of cases (a manifest, a runner header), the cases run (a runner end)
 *   16     u8   qconform_version[16]: the version of the qconform that wrote it (export) or
 *                that the runner was built with, ASCII, NUL-padded
 *   32     ...  body (below)
 *   end-4  u32  CRC-32 of bytes [0, total_bytes - 4)
 *
 * ---- An export directory (`qconform export ... --out DIR`) ------------------------------
 *
 *   DIR/manifest.qcm        the manifest (QCF_MAGIC_MANIFEST)
 *   DIR/cases/NNNNNN.qcc    case N (six or more decimal digits, from 000000), one file each
 *   DIR/outputs/            empty: where the hosted runner writes its records by default
 *   DIR/cases.c, cases.h    with --c-arrays: every case file as a const byte array (below)
 *
 * Manifest body ("QCMF"; header index = number of cases):
 *   u64 seed                      --seed of the export
 *   str profile                   --profile ("" without one)
 *   u32 n, str paths[n]           the SPEC|DIR arguments as given (none: the default specs)
 *   u32 n, str filters[n]         --filter, in order
 *   u32 n, str case_names[n]      --case, in order
 *   u32 n, str extensions[n]      --extension, in order
 *   u32 shard_index, shard_count  --shard K/N (0, 0: not sharded)
 *   u32 n, specs[n]               the spec files the export loaded, in run order:
 *        str path, str sha256 (64 lowercase hex digits of the file), u64 cases selected
 *   cases[index]                  in run order (the order of `qconform run`'s report):
 *        u32 crc (the case file's CRC-32, its last four bytes), u32 size (its total_bytes),
 *        u64 ordinal (the case's position in the unsharded run), str name
 * The manifest's own CRC-32 identifies the export: the runner copies it into its header.
 *
 * Case body ("QCCF"; header index = case index): one qcf_op_call, every field of the ABI.
 *   u64 seed                      the case's seed (for the record; the data is below)
 *   str name, str op, str semantics
 *   u32 n_inputs, u32 n_outputs, u32 n_attrs   (each at most QCF_CASE_MAX_TENSORS /
 *                                               QCF_CASE_MAX_ATTRS; a runner built with
 *                                               fewer tensors records the case not run)
 *   tensor[n_inputs + n_outputs]  inputs, then outputs:
 *        str name
 *        u32 dtype                qcf_dtype
 *        u32 rank                 at most QCF_MAX_RANK
 *        i64 shape[rank]
 *        u64 nbytes               qcf_tensor.nbytes
 *        u32 flags                QCF_CASE_T_*: which pointers are not NULL
 *        if QCF_CASE_T_QUANT:
 *          i32 axis, i32 count, i32 block_size
 *          u32 scale_dtype, u32 zero_point_dtype   if QCF_CASE_T_TYPES (ABI version 2)
 *          f32 scales[count]              if QCF_CASE_T_SCALES
 *          i32 zero_points[count]         if QCF_CASE_T_ZERO_POINTS
 *          f32 float_zero_points[count]   if QCF_CASE_T_FLOAT_ZERO_POINTS
 *        u8 data[nbytes]          if QCF_CASE_T_DATA. An input: its data (row-major, int4
 *                                 packed as the ABI says). An output: what the buffer holds
 *                                 before execute, the poison (values the answer cannot be,
 *                                 as `qconform run` fills it): a runner copies it in.
 *   attr[n_attrs]:
 *        str name, u32 type (qcf_attr_type), i32 count, then the value:
 *        INT: i64; FLOAT: f64; STRING: str; INTS: i64[count]; FLOATS: f64[count]
 *   u32 n_nodes                   (format version 4) 0: a single op. Else the call is a chain
 *                                 (plugin.h version 3: qcf_chain): op is the chain's name,
 *                                 the tensors above the graph's inputs and outputs, n_attrs 0,
 *                                 and at most QCF_CASE_MAX_NODES nodes follow:
 *   if n_nodes:
 *     u32 n_intermediates         at most QCF_CASE_MAX_TENSORS
 *     tensor[n_intermediates]     the tensors between the nodes, as above; their data is the
 *                                 poison they start as (the runner copies it in)
 *     node[n_nodes], in order:    each a complete single-op call
 *        str op, str semantics, u32 n_inputs, u32 n_outputs, u32 n_attrs
 *        u32 tensor[n_inputs + n_outputs]   which tensor each of its inputs, then outputs,
 *                                 is: 0 .. the call's inputs, then its outputs, then the
 *                                 intermediates (the node's tensor is that one: its name,
 *                                 description and buffer)
 *        attr[n_attrs]            as above
 *
 * ---- What a runner writes ---------------------------------------------------------------
 *
 * A run of the runner (a session) writes one runner header, then for each case a case start
 * and either its case record or, when the firmware's fault or watchdog handler stopped it, a
 * case abort; a session that reaches its last case ends with one runner end. A device that
 * restarts in the middle of a case leaves that case's start without a record, and the next
 * session (its header covering the cases after it) shows that it did: `qconform import` judges
 * such a case CRASH. The hosted runner writes the records as files (DIR/outputs/runner.qco:
 * the sessions' headers one after another; DIR/outputs/NNNNNN.qco: case N's start, then its
 * record or abort; DIR/outputs/end.qco), or all of them to one stream. Nothing may follow a
 * record in its file but the next record; a file ends with its last record.
 *
 * Runner header body ("QCRH"; header index = the export's number of cases):
 *   u32 manifest_crc              the export's identity (its manifest's CRC-32)
 *   u32 abi_version               the version negotiated with the plugin
 *   i32 create_status             what create() returned (QCF_OK, else nothing ran)
 *   str plugin_name, str plugin_version, str create_message
 *   str mode                      "hosted", "freestanding" or "streamed"
 *   u32 n, options[n]             the options create() got: str key, str value
 *   u32 first, u32 count          the cases this session covers: [first, first + count)
 *   u64 arena_bytes               QCONFORM_RUNNER_ARENA
 *   u32 n_watched                 the firmware's watched regions (qconform_runner_watch)
 *
 * Case start body ("QCRS"; header index = case index), written before supports() is called:
 *   u32 case_crc                  the case file's CRC-32
 *
 * Case record body ("QCRC"; header index = case index):
 *   u32 case_crc                  the case file's CRC-32 (binds the answer to the case)
 *   u32 stage                     QCF_STAGE_*: the call that returned `status`
 *   i32 status                    what it returned (qcf_status, or any other value)
 *   u32 check                     QCF_CHECK_*: a rule the runner saw broken, else 0
 *   u32 check_index               the output, input or watched region the check names
 *   u64 nanoseconds               prepare + execute, 0 without a clock
 *   str message                   last_error() when status is not QCF_OK (at most 255 bytes)
 *   u32 n_outputs
 *   output[n_outputs]: u64 nbytes, u8 data[nbytes]   the outputs as execute left them
 *                                 (nbytes 0 when status is not QCF_OK or the case did not run)
 *   u32 engine                    the qcf_engine_kind the plugin's engine() reported for an
 *                                 execute that returned QCF_OK, else 0 (format version 3)
 *   str engine_name               its name, at most 63 bytes ("" when none)
 *   u32 chain_mode                (format version 4) QCF_CHAIN_*: 0 a single op; a chain
 *                                 case: how the plugin was offered it (the runner's word)
 *   u32 chain_node                op by op: the node (from 1) whose call the status, stage,
 *                                 check and message above are of when one is not QCF_OK or
 *                                 broke a rule, else 0
 *   u32 nodes_ok                  op by op: the nodes that returned QCF_OK, in order
 *   u32 n_intermediates           the case's intermediates (0 for a single op), then each:
 *        u64 nbytes, u8 data[nbytes]   op by op, the kernel's value of the intermediate once
 *                                 the node writing it returned QCF_OK (fed to the nodes after
 *                                 it); nbytes 0 when fused or not written
 *
 * Case abort body ("QCRA"; header index = case index): the firmware's fault or watchdog
 * handler called qconform_runner_abort() while the case ran (or the host's feeder gave up
 * waiting for it, source 1):
 *   u32 case_crc, u32 kind (QCF_ABORT_*), u32 source (0 the device, 1 the host's feeder),
 *   u64 nanoseconds (since the start, 0 without a clock), str message (at most 255 bytes)
 *
 * Runner end body ("QCRE"; header index = cases this session ran): u32 manifest_crc.
 *
 * ---- Streamed cases (a device that holds none) -----------------------------------------
 *
 * The streamed runner (qconform_runner_serve) holds no case: it asks the host for each one
 * over the same line and reads its bytes into the arena. Device to host, as records of the
 * text stream below: a request ("QCRQ", header index = the case it wants, or QCF_REQ_SESSION
 * for a session; body: u64 arena_bytes). Host to device, raw bytes: first a session ("QCSS",
 * header index = the export's number of cases; body: u32 manifest_crc, u32 first, u32 count,
 * u32 reserved 0), then each case file as exported, each when it is asked for. A request is
 * answered with exactly one file; a file that fails its checks is asked for again (at most 3
 * times, then the runner records the case not run). `qconform feed` is the host's side.
 *
 * ---- The stream (a serial line) ---------------------------------------------------------
 *
 * The same records as text lines, so that a terminal program's capture of a UART survives
 * (CR LF line ends, other lines of the firmware's own log in between): each record is cut
 * into pieces of at most 57 bytes, each piece written as one line
 *     "QC1 " + base64(piece) + "\n"
 * (RFC 4648 alphabet with '=' padding; 57 bytes make 76 characters). A record's first piece
 * starts a new line. A reader keeps the lines that start with "QC1 " (after any CR), decodes
 * each, and joins the bytes: the records follow one another, each found by its header and
 * checked by its CRC. A case that appears twice must have identical records.
 *
 * ---- C arrays (--c-arrays) --------------------------------------------------------------
 *
 * cases.c defines, for a firmware without a file system (cases.h declares them):
 *   const unsigned char *const qconform_manifest; the manifest file's bytes
 *   const unsigned long qconform_manifest_size;
 *   const qcf_case_blob qconform_cases[];         case N's file bytes, in index order
 *   const unsigned long qconform_n_cases;
 */
#ifndef QCONFORM_CASE_H
#define QCONFORM_CASE_H

/* 1 the first; 2 case starts, aborts, the end record mandatory, streamed cases; 3 a case
 * record's engine and engine_name; 4 chains (a case's nodes and intermediates, a record's
 * chain mode and intermediates), 24 tensors a side */
#define QCF_FORMAT_VERSION        4
#define QCF_FORMAT_VERSION_OLDEST 3 /* the oldest import reads */
#define QCF_HEADER_BYTES          32
#define QCF_VERSION_BYTES         16
#define QCF_MAGIC_MANIFEST        "QCMF"
#define QCF_MAGIC_CASE            "QCCF"
#define QCF_MAGIC_RUNNER          "QCRH"
#define QCF_MAGIC_RESULT          "QCRC"
#define QCF_MAGIC_END             "QCRE"
#define QCF_MAGIC_START           "QCRS"
#define QCF_MAGIC_ABORT           "QCRA"
#define QCF_MAGIC_REQUEST         "QCRQ"
#define QCF_MAGIC_SESSION         "QCSS"
#define QCF_REQ_SESSION           0xffffffffu /* a request's index: a session, please */
#define QCF_CASE_MAX_TENSORS      24 /* inputs, outputs, intermediates: each at most (an LSTM's 24) */
#define QCF_CASE_MAX_NODES        8 /* a chain's nodes */
#define QCF_CASE_MAX_ATTRS        16
#define QCF_MESSAGE_BYTES         255 /* a case record's message, at most */
#define QCF_ENGINE_NAME_BYTES     63  /* a case record's engine_name, at most */
#define QCF_STREAM_PREFIX         "QC1 "
#define QCF_STREAM_PIECE          57 /* record bytes per stream line */

/* A tensor's flags. */
#define QCF_CASE_T_QUANT             1u /* quant is not NULL */
#define QCF_CASE_T_SCALES            2u
#define QCF_CASE_T_ZERO_POINTS       4u
#define QCF_CASE_T_FLOAT_ZERO_POINTS 8u
#define QCF_CASE_T_DATA              16u /* data is not NULL */
#define QCF_CASE_T_TYPES             32u /* quant has a scale_dtype or zero_point_dtype */

/* The call that returned a case record's status. */
#define QCF_STAGE_SUPPORTS 0u
#define QCF_STAGE_PREPARE  1u
#define QCF_STAGE_EXECUTE  2u

/* Rules the runner checks around execute (as `qconform run` does in its worker). */
#define QCF_CHECK_NONE          0u
#define QCF_CHECK_OUTPUT_PAST   1u /* wrote past the end of output check_index */
#define QCF_CHECK_OUTPUT_BEFORE 2u /* wrote before the start of output check_index */
#define QCF_CHECK_INPUT         3u /* modified input check_index */
#define QCF_CHECK_NOT_RUN       4u /* the runner could not run it (message says why) */
#define QCF_CHECK_CALL          5u /* modified the call (tensors, shapes, quantization, attributes) */
#define QCF_CHECK_OUTSIDE                                                                          \
	6u /* wrote outside its buffers: the arena's free bytes after the                          \
	      case (check_index 0), the case file's bytes (1), or watched                          \
	      region check_index - 2 */

/* How a chain case was offered to the plugin (a case record's chain_mode). */
#define QCF_CHAIN_NONE   0u /* a single op */
#define QCF_CHAIN_OPBYOP 1u /* each node in turn, the kernel's outputs fed forward */
#define QCF_CHAIN_FUSED  2u /* the chain as one call (the plugin negotiated ABI version 3) */

/* Why a case was aborted. */
#define QCF_ABORT_CRASH   1u /* a fault handler: the case crashed the device */
#define QCF_ABORT_TIMEOUT 2u /* a watchdog: the case ran too long */

/* One case file's bytes, for --c-arrays. */
typedef struct qcf_case_blob {
	const unsigned char *bytes;
	unsigned long size;
} qcf_case_blob;

#endif /* QCONFORM_CASE_H */
