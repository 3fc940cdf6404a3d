/**
 * Serial sharing as the commands see it: a serial line to a console and the source that shares
 * one among viewers. src/commands import serial sharing only through here (docs/ARCHITECTURE.md, "Walls").
 */
export { SerialLine } from './serial-line.js';
export { SharedSerialSource } from './shared-serial.js';
