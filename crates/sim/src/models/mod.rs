//! The models a simulated point runs on: devices, network, OSS service threads.
pub mod calibration;
pub mod device;
pub mod network;
