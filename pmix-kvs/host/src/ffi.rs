//! The C shim's interface (`c/shim.c`): the PMIx server library's calls the host makes, and
//! the upcalls it turns into [`Event`]s on the node's queue.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::OnceLock;
use std::sync::mpsc::Sender;

use crate::node::Event;

type FenceFn = unsafe extern "C" fn(*mut c_void, *const c_char, usize, c_int, c_int, u32);
type DmodexFn = unsafe extern "C" fn(*mut c_void, *const c_char, u32, *const c_char, u32);
type AnswerFn = unsafe extern "C" fn(u64, c_int, *const c_char, usize);

unsafe extern "C" {
    fn shim_server_init(
        hostname: *const c_char,
        tmpdir: *const c_char,
        fence: FenceFn,
        dmodex: DmodexFn,
        answer: AnswerFn,
    ) -> c_int;
    fn shim_register_nspace(
        nspace: *const c_char,
        size: u32,
        proc_nodes: *const u32,
        num_nodes: u32,
        node: u32,
        hosts: *const c_char,
    ) -> c_int;
    fn shim_setup_client(rank: u32, status: *mut c_int) -> *mut *mut c_char;
    fn shim_free_env(env: *mut *mut c_char);
    fn shim_upcall_done(handle: *mut c_void, status: c_int, data: *const c_char, ndata: usize);
    fn shim_dmodex_request(nspace: *const c_char, rank: u32, token: u64) -> c_int;
    fn shim_server_finalize() -> c_int;
    fn shim_error_string(status: c_int) -> *const c_char;
}

/// PMIx statuses the host returns (`pmix_common.h`).
pub mod status {
    /// `PMIX_SUCCESS`.
    pub const SUCCESS: i32 = 0;
    /// `PMIX_ERROR`.
    pub const ERROR: i32 = -1;
    /// `PMIX_ERR_TIMEOUT`.
    pub const ERR_TIMEOUT: i32 = -24;
    /// `PMIX_ERR_UNREACH`.
    pub const ERR_UNREACH: i32 = -25;
    /// `PMIX_ERR_BAD_PARAM`.
    pub const ERR_BAD_PARAM: i32 = -27;
    /// `PMIX_ERR_NOT_FOUND`.
    pub const ERR_NOT_FOUND: i32 = -46;
    /// `PMIX_ERR_NOT_SUPPORTED`.
    pub const ERR_NOT_SUPPORTED: i32 = -47;
}

static EVENTS: OnceLock<Sender<Event>> = OnceLock::new();

fn post(event: Event) {
    if let Some(tx) = EVENTS.get() {
        // The node's loop has ended only when the process is exiting.
        let _ = tx.send(event);
    }
}

/// An upcall the server library waits on: complete it exactly once with [`Upcall::done`].
#[derive(Debug)]
pub struct Upcall(*mut c_void);

// SAFETY: the handle is a heap block the shim allocated for this upcall; the shim's callback
// may be called from any thread (OpenPMIx shifts it to its own progress thread).
unsafe impl Send for Upcall {}

impl Upcall {
    /// Hands `status` and `data` to the server library (it gets a copy).
    pub fn done(self, status: i32, data: &[u8]) {
        // SAFETY: the handle came from the shim and is consumed here exactly once; the shim
        // copies `data` before returning.
        unsafe { shim_upcall_done(self.0, status, data.as_ptr().cast(), data.len()) }
    }
}

/// # Safety
/// Called by the shim with `data` valid for `ndata` bytes (or null when 0).
unsafe extern "C" fn on_fence(
    handle: *mut c_void,
    data: *const c_char,
    ndata: usize,
    collect: c_int,
    whole_job: c_int,
    timeout_s: u32,
) {
    let bytes = if ndata == 0 || data.is_null() {
        Vec::new()
    } else {
        // SAFETY: the shim passes the server's buffer of `ndata` bytes.
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), ndata) }.to_vec()
    };
    post(Event::Fence {
        upcall: Upcall(handle),
        data: bytes,
        collect: collect != 0,
        whole_job: whole_job != 0,
        timeout_s,
    });
}

/// # Safety
/// Called by the shim with a NUL-terminated namespace and key (or a null key).
unsafe extern "C" fn on_dmodex(
    handle: *mut c_void,
    nspace: *const c_char,
    rank: u32,
    key: *const c_char,
    timeout_s: u32,
) {
    // SAFETY: a pmix_nspace_t is NUL-terminated.
    let nspace = unsafe { CStr::from_ptr(nspace) }
        .to_string_lossy()
        .into_owned();
    let key = if key.is_null() {
        None
    } else {
        // SAFETY: the shim passes the info's NUL-terminated string.
        Some(
            unsafe { CStr::from_ptr(key) }
                .to_string_lossy()
                .into_owned(),
        )
    };
    post(Event::Dmodex {
        upcall: Upcall(handle),
        nspace,
        rank,
        key,
        timeout_s,
    });
}

/// # Safety
/// Called by the shim with `data` valid for `ndata` bytes (or null when 0).
unsafe extern "C" fn on_answer(token: u64, status: c_int, data: *const c_char, ndata: usize) {
    let bytes = if ndata == 0 || data.is_null() {
        Vec::new()
    } else {
        // SAFETY: the server's answer buffer of `ndata` bytes, valid during this call.
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), ndata) }.to_vec()
    };
    post(Event::DmodexAnswer {
        token,
        status,
        data: bytes,
    });
}

fn cstring(s: &str) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("{s:?} holds a NUL byte"))
}

fn check(what: &str, rc: c_int) -> Result<(), String> {
    if rc == status::SUCCESS {
        Ok(())
    } else {
        Err(format!("{what}: {}", error_string(rc)))
    }
}

/// `PMIx_Error_string`.
#[must_use]
pub fn error_string(status: i32) -> String {
    // SAFETY: PMIx returns a static string for any status.
    unsafe { CStr::from_ptr(shim_error_string(status)) }
        .to_string_lossy()
        .into_owned()
}

/// Starts the server library as node `hostname`; its upcalls go to `events`.
pub fn server_init(hostname: &str, tmpdir: &str, events: Sender<Event>) -> Result<(), String> {
    EVENTS
        .set(events)
        .map_err(|_| "the server is started once per process".to_owned())?;
    let h = cstring(hostname)?;
    let t = cstring(tmpdir)?;
    // SAFETY: the strings outlive the call; the callbacks match the shim's types.
    let rc = unsafe { shim_server_init(h.as_ptr(), t.as_ptr(), on_fence, on_dmodex, on_answer) };
    check("PMIx_server_init", rc)
}

/// Registers the job: `proc_nodes[r]` is rank r's node; `hosts` every node's name.
pub fn register_nspace(
    nspace: &str,
    proc_nodes: &[u32],
    node: u32,
    hosts: &[String],
) -> Result<(), String> {
    let ns = cstring(nspace)?;
    let hl = cstring(&hosts.join(","))?;
    let size = u32::try_from(proc_nodes.len()).map_err(|_| "too many ranks".to_owned())?;
    let nodes = u32::try_from(hosts.len()).map_err(|_| "too many nodes".to_owned())?;
    // SAFETY: the pointers are valid for the call; the shim reads `size` node ids.
    let rc = unsafe {
        shim_register_nspace(
            ns.as_ptr(),
            size,
            proc_nodes.as_ptr(),
            nodes,
            node,
            hl.as_ptr(),
        )
    };
    check("PMIx_server_register_nspace", rc)
}

/// Registers local client `rank` and returns the environment to start it with.
pub fn setup_client(rank: u32) -> Result<Vec<(String, String)>, String> {
    let mut rc: c_int = 0;
    // SAFETY: `rc` is a valid out-pointer.
    let env = unsafe { shim_setup_client(rank, &raw mut rc) };
    if env.is_null() {
        return Err(format!("register client {rank}: {}", error_string(rc)));
    }
    let mut vars = Vec::new();
    let mut i = 0;
    loop {
        // SAFETY: the shim returns a NULL-terminated array of C strings.
        let p = unsafe { *env.add(i) };
        if p.is_null() {
            break;
        }
        // SAFETY: each entry is a NUL-terminated string.
        let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        if let Some((k, v)) = s.split_once('=') {
            vars.push((k.to_owned(), v.to_owned()));
        }
        i += 1;
    }
    // SAFETY: the array came from shim_setup_client and is freed once.
    unsafe { shim_free_env(env) };
    check("PMIx_server_setup_fork", rc)?;
    Ok(vars)
}

/// Asks this node's server for one of its clients' data; the answer comes back as
/// [`Event::DmodexAnswer`] with `token`. Returns the call's status.
pub fn dmodex_request(nspace: &str, rank: u32, token: u64) -> i32 {
    let Ok(ns) = cstring(nspace) else {
        return status::ERR_BAD_PARAM;
    };
    // SAFETY: the namespace outlives the call.
    unsafe { shim_dmodex_request(ns.as_ptr(), rank, token) }
}

/// `PMIx_server_finalize`.
pub fn server_finalize() {
    // SAFETY: no argument; called once when the node ends.
    unsafe {
        shim_server_finalize();
    }
}
