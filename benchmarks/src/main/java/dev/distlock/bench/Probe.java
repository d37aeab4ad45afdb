package dev.distlock.bench;

class Probe {
}
